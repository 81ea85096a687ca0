"""Running episodes and writing/reading their ledgers."""
