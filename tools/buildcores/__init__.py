"""Import real parts from the BuildCores OpenDB snapshot into `catalogs/imported/*.toml`.

    python tools/import_buildcores.py [--source DIR] [--out DIR] [--chips FILE]

Reads one JSON record per part from `open-db/{GPU,PSU,PCCase,Motherboard,CPU}/` of the snapshot named in
catalogs/ATTRIBUTION.md and writes gpus.toml, psus.toml, cases.toml, motherboards.toml and cpus.toml: one
line `id = {…}` per entry (the catalog loader finds an imported entry by its line), sorted by id, each
entry validated against the part models, each file written atomically. Curated catalogs override imported
entries with the same id. Re-running on the same snapshot and gpu-chips.toml gives the same bytes.

Ids are `<maker>-<name words>` (GPU boards: `<maker>-<chip id>-<name words>`) without colours, memory
sizes, form-factor and marketing words; records with the same id and the same figures (colour variants,
repeated listings) are imported once; other collisions get the memory size, colour, variant or part
number appended, or the record uuid's first 8 digits as a last resort.

Every figure comes from the source record unless the entry lists its field in `estimated`; those are
filled by the rules in the docstring of each kind's module (summarised in catalogs/ATTRIBUTION.md):
gpus.py (GPU boards), psus.py, cases.py, motherboards.py and cpus.py.

Modules, in the order a run uses them: snapshot (reading the records), ids (names, makers, ids; one entry
per id), chips (gpu-chips.toml), one module per kind, with platforms (the board form factors and sockets
that cases, motherboards and CPUs share), curated (listings of curated parts, left out), writing (the TOML
files) and driver (the command line and the run); context is what each kind's mapper is given.
"""
