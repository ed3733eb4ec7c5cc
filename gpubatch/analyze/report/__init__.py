"""Output formats: each module renders an AnalyzeResult as text; FORMATS maps a name to its renderer."""
from . import github, json_out, sarif, text

FORMATS = {"text": text.render, "json": json_out.render, "sarif": sarif.render, "github": github.render}
