"""Maintenance scripts, run by hand (``python scripts/screenshots.py``); a package so the tests
import them by name (``from scripts import screenshots``) rather than by file path.  Not shipped:
MANIFEST.in prunes scripts/."""
