"""The course write-ups\x27 own APIs, as thin adapters over plies\x27 generic code."""
