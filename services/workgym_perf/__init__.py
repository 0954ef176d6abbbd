"""WorkGym's performance programs, on top of everything (nothing imports them): the benchmark
(`make bench`, ``python -m workgym_perf.bench``) and the load tests (`make load`,
``python -m workgym_perf.load``). Not in the wheel: run them from a checkout."""
