"""The build stage: a build file read and validated (`buildfile`, through the safe TOML reader
`planner.util.tomlfile` and its line finder `planner.util.tomlpos`, which the catalog and config readers share),
resolved against the catalogs into part models (`resolve`), edited by key path (`edit`), and its parts list
with prices (`parts_list`)."""
