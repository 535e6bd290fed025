"""The parser ANTLR generates from Trino's grammar (tests/support/trino_grammar/SqlBase.g4): generated code, not
edited by hand. `make grammar` writes it again; a test checks it is what the grammar generates."""
