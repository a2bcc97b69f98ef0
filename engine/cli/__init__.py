"""Command line interface: thin modules that parse, call the API and print."""
