"""The build session's files: save (and save as, asking before another file is replaced), open another build,
export the parts list or the power limits, and quit (asking when there are unsaved changes). A base of the app,
kept apart from its editing and checking."""

from __future__ import annotations

import os
from pathlib import Path

from textual.app import App

from planner.api import InputError, PlannerError
from planner.session import BuildSession, CheckResult
from tui.screens.dialogs import AskPath, Confirm, QuitDialog, ShowError


class FileCommands(App[None]):
    """What the app does with files; `PlannerApp` gives the session, its checks and `recheck`."""

    session: BuildSession

    @property
    def result(self) -> CheckResult | None:
        raise NotImplementedError

    @property
    def current(self) -> bool:
        raise NotImplementedError

    def recheck(self) -> None:
        raise NotImplementedError

    def offer_fix(self, before: BuildSession | None = None) -> None:
        raise NotImplementedError

    # -- files ------------------------------------------------------------------------------------------
    def action_save(self, then_quit: bool = False) -> None:
        if self.session.path is None:
            self.action_save_as(then_quit)
            return
        self._save(self.session.path, then_quit)

    def _file_name(self, name: str | None, doing: str) -> Path | None:
        """The file a name typed into a dialog names (`~` expanded); None, and why, when no file can have it."""
        if not name:
            return None
        if "\x00" in name:  # the system refuses it in any file name (Python raises ValueError)
            self.push_screen(ShowError(f"Not {doing}: a file name cannot hold a NUL character: {name!r}"))
            return None
        try:
            return Path(name).expanduser()
        except RuntimeError:  # `~someone` who has no home directory here: the name as typed
            return Path(name)

    def action_save_as(self, then_quit: bool = False) -> None:
        def chosen(name: str | None) -> None:
            path = self._file_name(name, "saved")
            if path is None:
                return
            if os.path.lexists(path) and path != self.session.path:  # another file: never replaced unasked
                self.push_screen(Confirm(f"{path} already exists. Replace it?", "Replace", "Cancel"),
                                 lambda replace: self._save(path, then_quit) if replace else None)
            else:
                self._save(path, then_quit)

        self.push_screen(AskPath("Save the build as:", str(self.session.path or "build.toml")), chosen)

    def _save(self, path: Path, then_quit: bool = False) -> None:
        try:
            saved = self.session.save(path)
        except (PlannerError, OSError) as error:
            self.push_screen(ShowError(f"Not saved: {error}"))  # and the app stays open
            return
        if then_quit:
            self.exit()
            return
        self.notify(f"Saved {saved}")
        self.recheck()

    def action_open(self) -> None:
        def chosen(name: str | None) -> None:
            path = self._file_name(name, "opened")
            if path is not None:
                self.open_file(path)

        def ask(discard: bool | None) -> None:
            if discard:
                self.push_screen(AskPath("Open build file:"), chosen)

        if self.session.dirty:
            self.push_screen(Confirm("Discard the unsaved changes and open another build?", "Discard", "Keep"), ask)
        else:
            ask(True)

    def open_file(self, path: Path) -> None:
        """Open another build: a file that parses but has an error opens with the offer to fix or close it."""
        before, catalog = self.session, self.session.catalog
        try:
            self.session = BuildSession.open(path, catalog)
        except InputError as error:
            try:
                self.session = BuildSession.open(path, catalog, validate=False)
            except PlannerError:
                self.push_screen(ShowError(f"Could not open the build: {error}"))
                return
        except PlannerError as error:
            self.push_screen(ShowError(f"Could not open the build: {error}"))
            return
        self.recheck()
        self.offer_fix(before)

    def action_export(self) -> None:
        def chosen(name: str | None) -> None:
            path = self._file_name(name, "exported")
            if path is None:
                return
            build = self.result.build if self.current and self.result is not None else None
            if self.current and build is None:
                self.push_screen(ShowError("Complete the build before exporting its parts list."))
                return
            try:  # the last check's build when it is of the build as it is now; else the session checks it
                self.session.export(path, build)
            except (PlannerError, OSError) as error:
                self.push_screen(ShowError(f"Not exported: {error}"))
                return
            self.notify(f"Exported {path}")

        self.push_screen(AskPath("Export to: a parts list (.md, .csv, .json, .txt), the power limits as an "
                                 "nvidia-smi script (.sh) or a systemd unit (.service):", "parts.md"), chosen)

    def action_quit_app(self) -> None:
        if not self.session.dirty:
            self.exit()
            return

        def answered(answer: str | None) -> None:
            if answer == "quit":
                self.exit()
            elif answer == "save":
                self.action_save(then_quit=True)

        self.push_screen(QuitDialog(), answered)
