"""algebra package."""
