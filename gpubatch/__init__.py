"""gpubatch: stream large batches of analysis work through one batched CuPy/NumPy engine."""
__version__ = "0.1.0"
