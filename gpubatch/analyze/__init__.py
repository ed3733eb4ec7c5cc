"""gpubatch analyze: discovery, parse + tensorize, batched metrics and rules, reporters."""
