"""Speed: each figure a ratio against the bare engine or library on the same input."""
