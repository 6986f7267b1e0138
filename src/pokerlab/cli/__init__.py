"""The ``pokerlab`` command line: thin wrappers that parse input, call the library, render."""
