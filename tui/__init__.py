"""fimreplay's Textual app. It reads the store and calls the library; no domain logic here."""
