"""Per-grid reference implementations: plain Python on lists of rows, written for clarity, not speed.

They define what each primitive means; the batched code must agree with them on every grid. None, an empty
grid or one larger than 30x30 means "invalid".

One module per group of primitives, as the batched code is laid out; every name is re-exported here, so
that `reference.rot90` is what a family registers."""
from .base import *
from .colour import *
from .compose import *
from .geometry import *
from .grown import *
from .layout import *
from .mirrors import *
from .moves import *
from .objects import *
from .other import *
