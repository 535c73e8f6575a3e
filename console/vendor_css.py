"""The NL Design System CSS the console serves, kept in git under console/static/vendor/ so that a fresh
machine runs the console without Node: `python -m console.vendor_css` refreshes it.

It fetches each pinned package with `npm pack` (npm checks the tarball against the registry's integrity
hash), copies the built CSS and the licence beside it, and writes vendor/README.md naming what came from
where. Change a version here and run it again to upgrade; `check()` (the test suite calls it) says when
the files on disk are not what this module names.
"""
from __future__ import annotations

import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

VENDOR = Path(__file__).resolve().parent / "static" / "vendor"

# directory -> (package, version, {file in the package: file under vendor/<directory>/}, what it is for)
PACKAGES: dict[str, tuple[str, str, dict[str, str], str]] = {
    "utrecht": ("@utrecht/component-library-css", "9.0.4",
                {"package/dist/index.css": "component-library.css", "package/LICENSE.md": "LICENSE.md"},
                "the components (BEM class names utrecht-*), styled by design tokens (CSS custom properties)"),
    "voorbeeld": ("@nl-design-system-unstable/voorbeeld-design-tokens", "7.4.1",
                  {"package/dist/theme.css": "theme.css", "package/LICENSE.md": "LICENSE.md"},
                  "the NL Design System's example theme (class voorbeeld-theme): a second token set, to show "
                  "that another organisation's theme applies (CONSOLE_THEME_CSS, docs/decisions/console.md)"),
}


def _readme() -> str:
    lines = ["# Vendored NL Design System CSS", "",
             "Written by `python -m console.vendor_css` (do not edit by hand): each package's built CSS and its",
             "licence, as published on the npm registry.", "",
             "| directory | package | version | licence | what for |", "|---|---|---|---|---|"]
    for directory, (package, version, _files, purpose) in PACKAGES.items():
        lines.append(f"| `{directory}/` | `{package}` | {version} | `{directory}/LICENSE.md` (EUPL-1.2) | {purpose} |")
    return "\n".join(lines) + "\n"


def refresh() -> None:
    """Fetch every pinned package and write its files (needs npm and the registry)."""
    with tempfile.TemporaryDirectory() as scratch:
        for directory, (package, version, files, _purpose) in PACKAGES.items():
            packed = subprocess.run(["npm", "pack", "--silent", f"{package}@{version}"], cwd=scratch, check=True,
                                    capture_output=True, text=True).stdout.strip().splitlines()[-1]
            target = VENDOR / directory
            target.mkdir(parents=True, exist_ok=True)
            with tarfile.open(Path(scratch) / packed) as tarball:
                for inside, name in files.items():
                    member = tarball.extractfile(inside)
                    if member is None:
                        raise SystemExit(f"{package}@{version} has no {inside}")
                    (target / name).write_bytes(member.read())
    (VENDOR / "README.md").write_text(_readme())


def check() -> list[str]:
    """What is missing or out of step under vendor/ (no network needed)."""
    problems = [f"{directory}/{name} is missing: run python -m console.vendor_css"
                for directory, (_p, _v, files, _w) in PACKAGES.items() for name in files.values()
                if not (VENDOR / directory / name).is_file()]
    readme = VENDOR / "README.md"
    if not readme.is_file() or readme.read_text() != _readme():
        problems.append("vendor/README.md does not name the pinned versions: run python -m console.vendor_css")
    return problems


if __name__ == "__main__":
    refresh()
    print("\n".join(check()) or f"vendored under {VENDOR}")
    sys.exit(1 if check() else 0)
