"""Web views of the games that have none of their own (see :mod:`hiddenhand.web.table`)."""
