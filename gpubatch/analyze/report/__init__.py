"""Output formats: each module renders an AnalyzeResult as text; FORMATS maps a name to its renderer."""
from . import github, gitlab, json_out, junit, sarif, text

FORMATS = {"text": text.render, "json": json_out.render, "sarif": sarif.render, "github": github.render,
           "gitlab": gitlab.render, "junit": junit.render}
