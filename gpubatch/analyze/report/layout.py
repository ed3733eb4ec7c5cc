"""JSON laid out for people and written fast: the outer levels one entry per line, each record below them one
compact line (CPython's C encoder; `indent` would send every value through the pure-Python one, which cost
most of a large run). The escaping is `json.dumps`'s, as before: one escaping function per format."""
import json


def layout(obj, depth: int) -> str:
    """`obj` as JSON with its first `depth` levels of dicts and lists broken over lines."""
    if depth <= 0 or not isinstance(obj, (dict, list)) or not obj:
        return json.dumps(obj)
    if isinstance(obj, dict):
        return "{\n" + ",\n".join(f"{json.dumps(k)}: {layout(v, depth - 1)}" for k, v in obj.items()) + "\n}"
    return "[\n" + ",\n".join(layout(v, depth - 1) for v in obj) + "\n]"
