"""Each replica held against its product's published description and other people's client
suites, all taken from the package registries at test time (never copied into the repo)."""
