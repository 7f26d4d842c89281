"""slotwise user interface: the Textual app and the command line.

Importing this package must stay cheap: Textual is imported only when the app opens.
"""

__version__ = "0.1.0"
