"""Command palette provider (Ctrl+P): every action of tui.keys that makes sense on the
current screen, searchable by name and description."""

from __future__ import annotations

from collections.abc import Iterator

from textual.command import DiscoveryHit, Hit, Hits, Provider

from slotwise.tui.keys import APP_KEYS, BUILD_KEYS, CHOOSER_KEYS, MAP_KEYS, Key, pretty_keys


class SlotwiseCommands(Provider):
    def _commands(self) -> Iterator[tuple[str, Key, object]]:
        from slotwise.tui.screens.build import BuildScreen
        from slotwise.tui.screens.chooser import ChassisChooser
        from slotwise.tui.widgets.chassis_map import ChassisMap

        screen = self.screen
        for k in APP_KEYS:
            if k.action != "command_palette":
                yield self._title(k), k, self.app
        if isinstance(screen, BuildScreen):
            for k in BUILD_KEYS:
                if not k.action.startswith("app."):
                    yield self._title(k), k, screen
            cmap = screen.query_one(ChassisMap)
            for k in MAP_KEYS:
                if k.action not in ("cursor_up", "cursor_down"):
                    yield self._title(k), k, cmap
        elif isinstance(screen, ChassisChooser):
            for k in CHOOSER_KEYS:
                yield self._title(k), k, screen

    @staticmethod
    def _title(k: Key) -> str:
        return f"{k.description} ({pretty_keys(k.keys)})"

    def _runner(self, target, action: str):
        async def run() -> None:
            await target.run_action(action)

        return run

    async def discover(self) -> Hits:
        for title, k, target in self._commands():
            yield DiscoveryHit(title, self._runner(target, k.action), help=k.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, k, target in self._commands():
            score = matcher.match(f"{title} {k.help}")
            if score > 0:
                yield Hit(
                    score, matcher.highlight(title), self._runner(target, k.action), help=k.help
                )
