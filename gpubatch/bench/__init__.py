"""gpubatch bench: the engine's operations on CPU, one GPU and N GPUs, set against the hardware's limits."""
