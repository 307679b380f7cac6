"""One module per game binding the generic batch kernels to the game's rules.

Each is a module-level ``@njit(cache=True)`` function ``run(mode, buffers)``, so numba compiles
it once per game and loads it from its disk cache afterwards (a factory closing over the
kernels would recompile in every process). A new game adds a module here with the same body.
"""
