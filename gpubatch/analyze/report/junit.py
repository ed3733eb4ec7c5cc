"""JUnit XML, as CI systems read test reports: one test suite per file with findings, one failed test case
per finding (`gpubatch.CODE`, with its line and column); a clean run is one passing test case.

The one escaping layer of this format is `_xml`: markup characters escaped, characters XML 1.0 cannot hold
replaced, undecodable bytes of a file name written as backslash escapes.
"""
import re
from collections.abc import Iterator

from .columns import char_col

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml(s: str) -> str:
    """Text or an attribute value (quotes escaped too), safe inside any element or double-quoted attribute."""
    s = s.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    s = _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", s)
    # xml.sax.saxutils.escape's replacements, without its import (urllib.request: 0.1 s of every CLI start)
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def chunks(result, root=None) -> Iterator[str]:
    by_file: dict[str, list] = {}
    every = result.findings
    for f in every:
        by_file.setdefault(f.path, []).append(f)
    total = len(every)
    yield ('<?xml version="1.0" encoding="UTF-8"?>\n'
           f'<testsuites name="gpubatch" tests="{max(total, 1)}" failures="{total}" errors="0">\n')
    for path, findings in by_file.items():
        yield (f'  <testsuite name="{_xml(path)}" tests="{len(findings)}" failures="{len(findings)}" '
               f'errors="0" skipped="0" package="gpubatch">\n')
        for f in findings:
            col = char_col(f.path, f.line, f.col)
            yield (f'    <testcase name="gpubatch.{_xml(f.code)}" classname="{_xml(path)}" line="{f.line}" '
                   f'column="{col}">\n'
                   f'      <failure message="{_xml(f.message)}" type="{_xml(f.code)}">'
                   f'{_xml(f"{path}:{f.line}:{col}: {f.code} {f.message}")}</failure>\n'
                   '    </testcase>\n')
        yield "  </testsuite>\n"
    if not by_file:
        yield ('  <testsuite name="gpubatch" tests="1" failures="0" errors="0" skipped="0">\n'
               '    <testcase name="no findings" classname="gpubatch"/>\n  </testsuite>\n')
    yield "</testsuites>\n"
