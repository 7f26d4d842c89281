"""slotwise: a terminal configurator for Supermicro GPU servers.

The installed package is one namespace: ``slotwise.engine`` (pure logic), ``slotwise.parts``
(catalog) and ``slotwise.tui`` (the Textual app and the headless CLI). In the repository the three
live as top-level folders (the project's layout); setuptools' ``package-dir`` maps them under this
package in the wheel, and in a checkout the links beside this file (``engine``, ``parts``, ``tui``)
make ``import slotwise.engine`` work without installing anything.
"""
