"""The workload form's serving fields (users, tokens/s per user, engine), by keyboard at 80x24:
each reaches the build's Workload, the verdict shows time to first token, tokens/s per user and
per server and the servers needed, and a bad value is reported by field name."""

from __future__ import annotations

from textual.widgets import Input, Select

from slotwise.engine.workload import Workload
from tests.tui.tui_helpers import gpu_build, keys_for, open_workload_form, set_input, verdict_text


async def test_users_rate_and_engine_reach_the_workload_and_the_verdict(make_app):
    start = Workload(model="llama-3.1-8b", method="inference", seq_len=2048)
    build = gpu_build(start)
    app = make_app(build=build)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_workload_form(pilot)
        form = app.screen
        users = form.query_one("#wl-users", Input)
        assert users.value == ""
        assert "Serving 1 user(s)" in verdict_text(app)

        await set_input(pilot, users, "64")
        await pilot.pause()
        assert app.history.current.workload.users == 64
        assert "Serving 64 user(s)" in verdict_text(app)
        one_each = app.history.current.workload

        rate = form.query_one("#wl-rate", Input)
        await set_input(pilot, rate, "20")
        await pilot.pause()
        assert app.history.current.workload.tokens_per_user_s == 20
        assert "20 tokens/s for 64 users" in verdict_text(app)

        # -64 users: the message names the field, the build keeps the last good workload
        users.focus()
        await pilot.press("home", "minus")
        await pilot.pause()
        assert users.value == "-64"
        assert "Users (serving)" in verdict_text(app) and "INPUT" in verdict_text(app)
        assert app.history.current.workload.users == 64
        await pilot.press("backspace")
        await pilot.pause()
        assert "INPUT" not in verdict_text(app)

        before = verdict_text(app)
        sel = form.query_one("#wl-engine", Select)
        sel.focus()
        await pilot.pause()
        await pilot.press("enter", *keys_for("eager"), "enter")
        await pilot.pause()
        assert app.history.current.workload.serving_engine == "eager"
        assert verdict_text(app) != before
        assert one_each.serving_engine is None
