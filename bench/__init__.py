"""The benchmark (`python -m bench`, `make bench`) and the corpus generator it builds
(`python -m bench.corpus`, `make corpus`): tools beside the product, not part of it."""
