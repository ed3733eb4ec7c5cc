"""Agreement of `gpubatch analyze`'s per-file raw counts with `radon raw` on a tree (default: this Python's
stdlib), and the time each takes. radon gets a per-file time limit, since it never finishes on some files.

usage: python benchmarks/agree_radon_raw.py [ROOT] [--limit SECONDS]   (needs radon installed)
"""
import argparse
import collections
import signal
import sys
import sysconfig
import time
import tokenize

from radon.raw import analyze

from gpubatch.analyze.discover import discover
from gpubatch.analyze.rawmetrics import FIELDS, raw_metrics


class _Late(Exception):
    pass


def _alarm(*_):
    raise _Late


def main(root: str, limit: int) -> None:
    signal.signal(signal.SIGALRM, _alarm)
    files = [p for p in discover([root], default_excludes=True) if "site-packages" not in str(p)]
    same, differ, late, failed, unreadable, ours_s, radon_s = 0, collections.Counter(), [], [], 0, 0.0, 0.0
    for path in files:
        try:
            with tokenize.open(path) as fh:
                text = fh.read()
            compile(text, str(path), "exec", flags=0x400, dont_inherit=True)  # ast only: never runs it
        except (SyntaxError, UnicodeDecodeError, ValueError, OSError):
            unreadable += 1  # analyze reports these as E999/E902 and counts no lines
            continue
        t0 = time.perf_counter()
        ours, _ = raw_metrics(text)
        t1 = time.perf_counter()
        signal.alarm(limit)
        try:
            theirs = analyze(text)._asdict()
        except _Late:
            late.append(str(path))
            continue
        except Exception as exc:  # noqa: BLE001 - radon's own tokenizer-based reading can fail
            failed.append(f"{path} ({type(exc).__name__}: {exc})")
            continue
        finally:
            signal.alarm(0)
        t2 = time.perf_counter()
        ours_s, radon_s = ours_s + t1 - t0, radon_s + t2 - t1
        bad = [k for k in FIELDS if ours[k] != theirs[k]]
        same += not bad
        for k in bad:
            differ[k] += 1
        if bad:
            print("  differs:", path, {k: (ours[k], theirs[k]) for k in bad})
    compared = len(files) - unreadable - len(late) - len(failed)
    print(f"Python {sys.version.split()[0]}: {len(files)} files, {unreadable} not parseable, radon over {limit} s "
          f"on {len(late)} {late}, radon failed on {len(failed)} {failed}; identical on {same}/{compared}; "
          f"fields differing: {dict(differ) or 'none'}")
    print(f"time on the compared files: gpubatch {ours_s:.2f} s, radon raw {radon_s:.2f} s")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("root", nargs="?", default=sysconfig.get_paths()["stdlib"])
    ap.add_argument("--limit", type=int, default=10)
    a = ap.parse_args()
    main(a.root, a.limit)
