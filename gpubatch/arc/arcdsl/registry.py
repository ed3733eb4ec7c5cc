"""Every arc-dsl primitive by name, and the constants: what a solver file may call or name."""
from __future__ import annotations

from typing import Any, Callable

from . import prims_base, prims_func, prims_grid, prims_objects, prims_patch

NAMES = (
    "identity add subtract multiply divide invert even double halve flip equality contained combine "
    "intersection difference dedupe order repeat greater size merge maximum minimum valmax valmin argmax argmin "
    "mostcommon leastcommon initset both either increment decrement crement sign positive toivec tojvec sfilter "
    "mfilter extract totuple first last insert remove other interval astuple product pair branch compose chain "
    "matcher rbind lbind power fork apply rapply mapply papply mpapply prapply mostcolor leastcolor height width "
    "shape portrait colorcount colorfilter sizefilter asindices ofcolor ulcorner urcorner llcorner lrcorner crop "
    "toindices recolor shift normalize dneighbors ineighbors neighbors objects partition fgpartition uppermost "
    "lowermost leftmost rightmost square vline hline hmatching vmatching manhattan adjacent bordering "
    "centerofmass palette numcolors color toobject asobject rot90 rot180 rot270 hmirror vmirror dmirror cmirror "
    "fill paint underfill underpaint hupscale vupscale upscale downscale hconcat vconcat subgrid hsplit vsplit "
    "cellwise replace switch center position index canvas corners connect cover trim move tophalf bottomhalf "
    "lefthalf righthalf vfrontier hfrontier backdrop delta gravitate inbox outbox box shoot occurrences "
    "frontiers compress hperiod vperiod").split()


def primitives() -> dict[str, Callable[..., Any]]:
    """The 160 primitives, each from the module of its family."""
    modules = (prims_base, prims_func, prims_patch, prims_grid, prims_objects)
    table = {}
    for name in NAMES:
        for mod in modules:
            fn = getattr(mod, name, None)
            if callable(fn) and getattr(fn, "__module__", "") == mod.__name__:
                table[name] = fn
                break
        else:
            raise LookupError(f"arc-dsl primitive {name} has no reference")
    return table


def solver_table() -> dict[str, Callable[..., Any]]:
    """What solvers call: the references, with the array forms of `arrays.FORMS` in place of theirs."""
    from . import arrays  # NumPy is imported only when solvers run

    return {**primitives(), **arrays.FORMS}


CONSTANTS = prims_base.CONSTANTS
