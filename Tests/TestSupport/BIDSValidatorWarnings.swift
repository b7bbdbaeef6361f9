/// What the BIDS validator may warn about in a dataset gazerec exports: only what the researcher
/// adds (authors, licence, README, the task's description, the institution; docs/ExportFormat.md).
/// Any other warning is a defect of the export.
public enum BIDSValidatorWarnings {
    public static let researcherAdds: Set<String> = [
        "JSON_KEY_RECOMMENDED/HEDVersion", "JSON_KEY_RECOMMENDED/License", "JSON_KEY_RECOMMENDED/SourceDatasets",
        "NO_AUTHORS/Authors", "TOO_FEW_AUTHORS", "README_FILE_MISSING", "SIDECAR_KEY_RECOMMENDED/CogAtlasID",
        "SIDECAR_KEY_RECOMMENDED/CogPOID", "SIDECAR_KEY_RECOMMENDED/InstitutionAddress", "SIDECAR_KEY_RECOMMENDED/InstitutionName",
        "SIDECAR_KEY_RECOMMENDED/InstitutionalDepartmentName", "SIDECAR_KEY_RECOMMENDED/Instructions",
        "SIDECAR_KEY_RECOMMENDED/TaskDescription",
    ]
}
