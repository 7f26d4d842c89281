"""Benches, run by hand (``python bench/<name>.py``); a package so the tests import them by name
(``from bench import power``) rather than by file path.  Not shipped: MANIFEST.in prunes bench/."""
