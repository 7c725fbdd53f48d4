"""The benchmark methods built into the harness: DevEval's lifecycle stages, ProjectEval,
RealDevWorld's apps."""
