"""The node table's vocabulary: node kinds, the columns of a file's table, and the flag, role and value codes
that the flattener writes and the metrics, rules and clone features read."""
from __future__ import annotations

import ast
import hashlib

KINDS = sorted(c.__name__ for c in (*ast.AST.__subclasses__(), *[s for b in ast.AST.__subclasses__()
                                                                   for s in b.__subclasses__()]))
KIND = {name: i for i, name in enumerate(dict.fromkeys(KINDS))}
COLUMNS = ("kind", "parent", "line", "col", "end_line", "end_col", "owner", "dead", "a", "b", "role", "flags",
           "nest", "qname", "val")
F_BARE_EXCEPT, F_NONE, F_BOOL, F_EQ, F_STR, F_LAST_IRREFUTABLE = 1, 2, 4, 8, 16, 32
# `dead`: what radon cc's visitor skips: 1 a class's decorators and bases, or an assert; 2 a function's decorators
# and signature, which radon's Halstead visitor skips too
DEAD_CLASS_HEAD, DEAD_SIGNATURE = 1, 2
F_CMP_NONE, F_CMP_BOOL = 64, 128  # a None / True / False compared by == or != (E711 / E712, as ruff decides)
F_BYTES = 256  # a bytes constant: text as much as a string is, to clone detection (a copied b"""...""" block)
F_TEXT = F_STR | F_BYTES
# the first statement after an `else:` (of an if, a loop or a try) or a `finally:` line: those lines hold no node,
# but pylint's duplicate-code counts them as lines, and to clone detection they tell `if a: x else: y` from
# `if a: x` then `y`
F_AFTER_ELSE, F_AFTER_FINALLY = 512, 1024
# `val`: what tells two nodes of one kind apart in the source. Operators (a BinOp's op, a Compare's ops...)
# are small numbers below OP_VALUES (clone detection keeps them when it forgets names); names, attributes
# and constants are 62-bit hashes of their text at or above it.
OP_VALUES = 1 << 16
# a def's default value, a node inside a default, a def's arguments, a lambda's arguments and default values
R_DEFAULT, R_IN_DEFAULT, R_DEF_ARGS, R_LAMBDA_ARGS, R_LAMBDA_DEFAULT = 1, 2, 3, 4, 5
R_EXEMPT_DEFAULT = 6  # the default of a parameter annotated with an immutable type: neither B006 nor B008


def qhash(name: str) -> int:
    """Signed 64-bit hash of a dotted name (shared by the tensorizer and the rules' config)."""
    return int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "little", signed=True)

