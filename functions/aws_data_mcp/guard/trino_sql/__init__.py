"""The parser ANTLR generates from Trino's grammar (tests/support/trino_grammar/SqlBase.g4): `SqlBaseLexer` and
`SqlBaseParser`, generated code, not edited by hand. `make grammar` writes them again; a test checks they are what
the grammar generates."""
