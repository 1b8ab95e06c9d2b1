"""The report as an author reads it in a terminal (``--json`` gives the same facts to tools)."""

from __future__ import annotations

from typing import Any


def _commands(commands: list[str]) -> str:
    return " / ".join(commands) if commands else "(the opening)"


def format_report(report: dict[str, Any]) -> str:
    lines = [f"Explored {report['world']}: {report['games']} games of up to {report['turns']} turns, "
             f"seed {report['seed']}.", "", "Endings:"]
    for ending in report["endings"]:
        if ending["reached"]:
            lines.append(f"  {ending['id']} ({ending['title']}): {_commands(ending['commands'])}")
        else:
            lines.append(f"  {ending['id']} ({ending['title']}): never reached")
    lines += ["", "Never reached:"]
    empty = True
    for kind, labels in report["unreached"].items():
        if labels:
            empty = False
            lines.append(f"  {kind}: {', '.join(labels)}")
    if empty:
        lines.append("  nothing")
    lines += ["", f"Faults: {len(report['faults'])}"]
    for fault in report["faults"]:
        lines.append(f"  {fault['kind']}: {fault['detail']}")
        lines.append(f"    > {_commands(fault['commands'])}")
    return "\n".join(lines)
