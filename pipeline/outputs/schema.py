"""The output contract: every table, every column, its type, unit and meaning.

Analysts and CI rely on these names; the write stage builds explicit pyarrow schemas from
them and the data dictionary is generated from the same place.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline import knowledge

SCHEMA_VERSION = "3"


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    type: str  # string | int | float | bool | date
    description: str
    unit: str | None = None


def _c(name: str, type_: str, description: str, unit: str | None = None) -> Column:
    return Column(name, type_, description, unit)


DOCUMENTS = (
    _c("document", "string", "Path of the document below the sources folder (POSIX separators)."),
    _c("sha256", "string", "SHA-256 of the file's bytes."),
    _c("encoding", "string", "Encoding the bytes were decoded with."),
    _c("title", "string", "Title from the front-matter."),
    _c("author", "string", "Author from the front-matter (author or ms.author)."),
    _c("as_of", "date", "Date the document states for itself (ms.date or date)."),
    _c("date_field", "string", "Front-matter key the date came from."),
    _c("service", "string", "Service the page belongs to (ms.service) or the feed that carried it."),
    _c("canonical_url", "string", "Canonical URL given by the document."),
    _c("tags", "string", "Front-matter tags, joined with '; '."),
    _c("family", "string", "Source family recognised from the document's own evidence."),
    _c("kind", "string", "Authority tier: official_spec, api_catalog, vendor_blog or third_party."),
    _c("publisher", "string", "Publisher named by the source registry ('unknown' when not listed)."),
    _c("licence", "string", "Licence of the document's text, from the source registry."),
    _c("trust", "float", "Weight a claim from this document starts with (tier weight or registry override)."),
    _c("classified_by", "string", "'registry', or the evidence the tier was inferred from."),
    _c("subject", "string", "Series the document is about, as written in its title or first heading."),
    _c(
        "copy_of",
        "string",
        "The document this one repeats (another version or copy of the same page, by title or by nearly all "
        "its table values): the two count as one voice.",
    ),
    _c("lines", "int", "Number of lines in the file.", "line"),
    _c("claims", "int", "Number of claims taken from the document.", "claim"),
    _c("repository", "string", "GitHub repository the file is a copy of (owner/name), from sources/upstream.lock."),
    _c("commit", "string", "Last commit (40 hex digits) that changed the file upstream, from sources/upstream.lock."),
    _c("upstream_path", "string", "Path of the file in `repository`."),
    _c(
        "url",
        "string",
        "Permalink to the file at `commit` (https://github.com/<repository>/blob/<commit>/<upstream_path>); "
        "append #L<line> for a line.",
    ),
)

CLAIMS = (
    _c("claim_id", "string", "Stable identifier of the claim (hash of its provenance and value)."),
    _c("document", "string", "Document the claim comes from."),
    _c("line", "int", "Line of the file (1-based, front-matter counted) the statement stands on.", "line"),
    _c("section", "string", "Heading path above the statement, joined with ' > '."),
    _c("table_index", "int", "1-based index of the table in the document, when from a table."),
    _c("row_index", "int", "1-based body row of the table, when from a table."),
    _c("column", "string", "Column header as written, when from a table."),
    _c("raw_text", "string", "The text the value was read from, as written (after encoding repair)."),
    _c(
        "method",
        "string",
        "How the claim was extracted: table, part_table, key_value, feature_table, note, "
        "paragraph, bullet, derived (computed from another value of the same cell or row), "
        "name_convention (read from the size name itself).",
    ),
    _c("entity", "string", "Canonical size name (Standard_ND40rs_v2) or series name (NDv2)."),
    _c("entity_kind", "string", "size or series."),
    _c(
        "name_as_written",
        "string",
        "For a size, its name as the row or line writes it, markdown escapes and footnote marks included; where it "
        "names another size than `entity`, the name was read as another name of that size (a suspect_size_name "
        "diagnostic says why).",
    ),
    _c("attribute", "string", "Attribute the claim is about (see attributes in SCHEMA.md)."),
    _c("value", "string", "The normalized value as text (numbers in the attribute's unit; ranges as low-high)."),
    _c("value_number", "float", "Numeric value in the attribute's canonical unit."),
    _c("value_text", "string", "Text value (models, names, lists)."),
    _c("value_bool", "bool", "Flag value (feature supported)."),
    _c("range_min", "float", "Low end of a stated range (equals value_number for single values)."),
    _c("range_max", "float", "High end of a stated range (equals value_number for single values)."),
    _c("unit", "string", "Canonical unit of value_number."),
    _c("unit_as_written", "string", "Unit as the document printed it."),
    _c("interpretation", "string", "How an ambiguous statement was read, and why."),
    _c("checks_failed", "string", "Consistency checks the claim fails, joined with '; ' (see facts)."),
)

FACTS = (
    _c("entity", "string", "Canonical size or series name."),
    _c("entity_kind", "string", "size or series."),
    _c("attribute", "string", "Attribute of the entity."),
    _c("value", "string", "The chosen value as text (ranges as low-high)."),
    _c("value_number", "float", "The chosen numeric value in `unit`."),
    _c("value_text", "string", "The chosen text value."),
    _c("value_bool", "bool", "The chosen flag value."),
    _c("range_min", "float", "Low end of a chosen range."),
    _c("range_max", "float", "High end of a chosen range."),
    _c("unit", "string", "Canonical unit of value_number."),
    _c("confidence", "float", "How far the value can be trusted, from 0 to 1.", "probability"),
    _c("status", "string", "agreed, resolved, single_source, unverified or unresolved."),
    _c("reason", "string", "One sentence on why this value was chosen."),
    _c("supporting_claims", "string", "claim_id of every claim stating the chosen value, joined with ' '."),
    _c("contradicting_claims", "string", "claim_id of every claim stating another value, joined with ' '."),
    _c(
        "sources",
        "int",
        "Independent sources stating the chosen value (the naming convention counts as one).",
        "source",
    ),
    _c("document", "string", "Document of the winning claim."),
    _c("line", "int", "File line of the winning claim.", "line"),
    _c("as_of", "date", "Date of the winning claim's document."),
    _c("inherited_from", "string", "Series the value was inherited from, when the size states none itself."),
    _c(
        "basis",
        "string",
        "What the value rests on: stated (a document states it for the entity), computed (from values stated for "
        "it), or inferred: inherited (from its series), sibling (copied from a size of the same series and vCPU "
        "count) or name (read from the size name).",
    ),
    _c("basis_from", "string", "The series an inherited value comes from, or the sibling size a copied one does."),
    _c("checks_failed", "string", "Consistency checks the winning claim fails, joined with '; '."),
    _c("stale", "bool", "True when the only support is much older than another document about the entity."),
)

CONFLICTS = (
    _c("entity", "string", "Canonical size or series name."),
    _c("attribute", "string", "Attribute in dispute."),
    _c("value", "string", "One competing value."),
    _c("unit", "string", "Unit of the value."),
    _c("won", "bool", "True for the value chosen in `facts`."),
    _c("superseded", "bool", "True when a newer document of the same tier replaced this value."),
    _c("claims", "string", "claim_id of the claims stating this value, joined with ' '."),
    _c("documents", "string", "document:line of each claim stating this value, joined with '; '."),
    _c(
        "links",
        "string",
        "Permalink to the line (url#L<line>) of each of `documents`, in its order and empty where it has none, "
        "joined with '; '.",
    ),
    _c("kinds", "string", "Source tiers stating this value, joined with ', '."),
    _c("newest", "date", "Newest document date behind this value."),
    _c("checks_failed", "string", "Consistency checks this value fails, joined with '; '."),
    _c("note", "string", "Why the winning value won, or how the value entered the dispute."),
)

NAMES = (
    _c("name", "string", "A size name the documents use that stands for another size (canonical spelling)."),
    _c("written", "string", "The name as the documents write it, each spelling once, joined with '; '."),
    _c("size", "string", "The size (a row of vm_sizes) the name stands for; its claims count for that size."),
    _c(
        "certainty",
        "string",
        "certain (another spelling of the size's name, or one token more or less with every value equal) or "
        "likely (the evidence points to the size, but the name could be another's).",
    ),
    _c("evidence", "string", "Why the name is read as `size`: how the two names differ, and what the values say."),
    _c("documents", "int", "Number of documents that use the name.", "document"),
    _c("uses", "string", "document:line of every use of the name, joined with '; '."),
    _c(
        "links",
        "string",
        "Permalink to the line (url#L<line>) of each of `uses`, in its order and empty where it has none, "
        "joined with '; '.",
    ),
)

ERRATA = (
    _c(
        "erratum_id",
        "string",
        "Stable identifier of the erratum (hash of its kind, document, line, attribute and value).",
    ),
    _c(
        "kind",
        "string",
        "What the value contradicts: page_vs_include (the page's own include, or the series its include states), "
        "page_vs_page (another current official page), docs_vs_api (the API, or for a catalog's value the pages), "
        "physical_check, series_pattern (the pattern the series' other sizes follow), header_unit (its header's unit "
        "is no unit of its numbers) or api_physics (a catalog value physics rules out).",
    ),
    _c("document", "string", "The document that states the value."),
    _c("line", "int", "File line of the value.", "line"),
    _c("url", "string", "Permalink to the line upstream (url#L<line>), for a Learn page sources/upstream.lock lists."),
    _c("repository", "string", "The GitHub repository the page is to be fixed in (owner/name)."),
    _c("upstream_path", "string", "Path of the page in `repository`."),
    _c("catalog", "string", "For a value of an API catalog: the catalog's name (registry.toml), to report it to."),
    _c("entities", "string", "The sizes or series the value is stated for, joined with '; '."),
    _c("attribute", "string", "The attribute the value is of."),
    _c("written", "string", "The text as the document writes it."),
    _c("value", "string", "The value as read, with its unit."),
    _c(
        "supported",
        "string",
        "The value the evidence supports, with its unit; empty where it says only that it is wrong.",
    ),
    _c("evidence", "string", "Why the value is wrong: what the other documents state, the check it fails."),
    _c("evidence_at", "string", "document:line of each statement behind the evidence, joined with '; '."),
    _c(
        "evidence_links",
        "string",
        "Permalink to each of `evidence_at`, in its order and empty where it has none, joined with '; '.",
    ),
    _c("sure", "float", "How sure the erratum is, from 0 to 1.", "probability"),
)

CERTAINTY = ("certain", "likely")
"""How sure the `names` table is that a name stands for its size."""

FOUND_IN = ("docs and API", "docs only", "API only", "third parties only")
"""Where a size is named (`vm_sizes.found_in`): by a page and an API catalog, by a page only, by
an API catalog only, or by third-party pages only."""

PRICES = (
    _c("size", "string", "Canonical size name."),
    _c("region", "string", "Azure region (ARM name, lower case)."),
    _c("os", "string", "Operating system the price is for (Linux for the SkyPilot catalog)."),
    _c("on_demand_usd_per_hour", "float", "Pay-as-you-go price.", "USD/hour"),
    _c("spot_usd_per_hour", "float", "Spot price.", "USD/hour"),
    _c("snapshot", "string", "The catalog snapshot the price comes from (its document)."),
    _c("newest", "bool", "True when this is the newest snapshot of its catalog that lists the size."),
    _c(
        "listed_after_retirement",
        "bool",
        "True when the documents retire the size (vm_sizes.lifecycle is retired): the catalog lists a price that "
        "is not current, and vm_sizes gives the size no lowest price.",
    ),
    _c("document", "string", "Document the row comes from."),
    _c("line", "int", "File line of the row.", "line"),
)

CALIBRATION = (
    _c(
        "bin",
        "string",
        "A range of confidence (0.90-0.95), or 'all' for the whole table, whose `ece` is the expected calibration "
        "error.",
    ),
    _c("low", "float", "Lowest confidence of the bin.", "probability"),
    _c("high", "float", "Highest confidence of the bin (exclusive, but for the last bin).", "probability"),
    _c(
        "facts",
        "int",
        "Values the documents alone give that an API catalog also states (a catalog value failing a physical "
        "check is left out), in the bin.",
        "fact",
    ),
    _c("mean_confidence", "float", "Mean confidence of those values.", "probability"),
    _c("accuracy", "float", "Share of them the catalog confirms.", "probability"),
    _c("ece", "float", "On the 'all' row: the mean gap between confidence and accuracy, bins weighted by facts."),
)

DIAGNOSTICS = (
    _c("severity", "string", "error, warning or info."),
    _c("code", "string", "Stable code of the problem kind."),
    _c("document", "string", "Document the problem was found in."),
    _c("line", "int", "File line of the problem, when known.", "line"),
    _c("message", "string", "What is wrong, for a person."),
)


def _vm_size_columns() -> tuple[Column, ...]:
    know = knowledge.load()
    cols = [
        _c("size", "string", "Canonical size name (Standard_...)."),
        _c("series", "string", "Series the size belongs to (canonical name)."),
    ]
    for name in VM_SIZE_ATTRIBUTES:
        attr = know.attributes[name]
        if attr.kind == "number":
            type_ = "int" if name in INT_ATTRIBUTES else "float"
        elif attr.kind == "flag":
            type_ = "bool"
        elif attr.kind == "date":
            type_ = "date"
        else:
            type_ = "string"
        cols.append(_c(name, type_, attr.description, attr.unit))
    cols.extend(
        [
            _c(
                "documents",
                "int",
                "Number of documents that name the size: a row, a list or a comparison table of theirs (not a "
                "sibling's page, whose values a size may copy).",
                "document",
            ),
            _c(
                "found_in",
                "string",
                "Where the size is named: 'docs and API' (a page and an API catalog), 'docs only' (not in any "
                "catalog snapshot), 'API only' (no page names it) or 'third parties only' (unverified).",
            ),
            _c("api_snapshot", "string", "The newest API catalog snapshot that lists the size (its document)."),
            _c(
                "lowest_price_usd_per_hour",
                "float",
                "Lowest on-demand price over the regions of the newest snapshot that prices the size; empty for a "
                "size the documents retire (its catalog rows stay in `prices`, marked listed_after_retirement).",
                "USD/hour",
            ),
            _c(
                "price_per_gpu_hour_usd",
                "float",
                "lowest_price_usd_per_hour divided by gpu_count: what one GPU costs an hour.",
                "USD/GPU-hour",
            ),
            _c(
                "status",
                "string",
                "unverified when no official document names the size; else the weakest status "
                "of the row's core values (unresolved < resolved < single_source < agreed).",
            ),
            _c(
                "confidence",
                "float",
                "Lowest confidence among the row's core values (the columns from vcpus to network_bandwidth_mbps).",
                "probability",
            ),
            _c(
                "value_basis",
                "string",
                "What the row's values rest on: how many a document states for this size, and each value that is "
                "computed from stated ones, inherited from the series, copied from a sibling size or read from the "
                "name, by where it comes from (facts.basis gives it value by value).",
            ),
            _c(
                "inferred_attributes",
                "string",
                "The columns whose value no document states for this size (inherited, copied from a sibling or read "
                "from the name), joined with ', '; empty when every value is stated.",
            ),
        ]
    )
    return tuple(cols)


CORE_ATTRIBUTES = frozenset(
    {
        "vcpus",
        "memory_gib",
        "gpu_count",
        "gpu_model",
        "gpu_memory_gib",
        "temp_storage_gib",
        "max_data_disks",
        "uncached_disk_iops",
        "uncached_disk_mbps",
        "max_nics",
        "network_bandwidth_mbps",
    }
)
"""The columns every analyst asks for; a row's status and confidence are taken over these."""

INT_ATTRIBUTES = frozenset(
    {
        "vcpus",
        "max_data_disks",
        "uncached_disk_iops",
        "max_nics",
        "temp_disk_count",
        "nvme_disk_count",
        "temp_disk_read_iops",
        "temp_disk_write_iops",
        "uncached_disk_burst_iops",
        "uncached_ultra_disk_iops",
        "uncached_ultra_disk_burst_iops",
        "virtual_workstations",
        "virtual_applications",
    }
)
"""Counts that are whole numbers in every size: integer columns of vm_sizes."""

VM_SIZE_ATTRIBUTES = (
    "vcpus",
    "memory_gib",
    "gpu_count",
    "gpu_model",
    "gpu_memory_gib",
    "gpu_memory_total_gib",
    "temp_storage_gib",
    "max_data_disks",
    "uncached_disk_iops",
    "uncached_disk_mbps",
    "max_nics",
    "network_bandwidth_mbps",
    "temp_disk_count",
    "nvme_disk_count",
    "nvme_disk_size_gib",
    "nvme_disk_total_gib",
    "cpu_model",
    "cpu_vendor",
    "cpu_architecture",
    "interconnect",
    "lifecycle",
    "retirement_date",
    "premium_storage",
    "infiniband",
    "nvlink",
    "accelerated_networking",
    "live_migration",
    "generation_1_vms",
    "generation_2_vms",
    "temp_disk_read_iops",
    "temp_disk_read_mbps",
    "temp_disk_write_iops",
    "temp_disk_write_mbps",
    "uncached_disk_burst_iops",
    "uncached_disk_burst_mbps",
    "uncached_ultra_disk_iops",
    "uncached_ultra_disk_mbps",
    "uncached_ultra_disk_burst_iops",
    "uncached_ultra_disk_burst_mbps",
    "virtual_workstations",
    "virtual_applications",
)


def tables() -> dict[str, tuple[Column, ...]]:
    """Every output table and its columns, in output order."""
    return {
        "documents": DOCUMENTS,
        "claims": CLAIMS,
        "vm_sizes": _vm_size_columns(),
        "names": NAMES,
        "facts": FACTS,
        "conflicts": CONFLICTS,
        "errata": ERRATA,
        "prices": PRICES,
        "calibration": CALIBRATION,
        "diagnostics": DIAGNOSTICS,
    }
