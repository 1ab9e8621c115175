"""How each editor turns a cursor into a prompt: templates, Tabby, Continue, the standard profile."""
