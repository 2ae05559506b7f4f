//! The README's account of the run directory's CSV files names each
//! file's columns exactly as rdmasim writes them, and says how pandas
//! keeps the columns with empty cells integer.

const README: &str = include_str!("../../../README.md");

#[test]
fn readme_lists_every_run_csv_header_verbatim() {
    for (file, header) in [
        ("flows.csv", stats::FLOWS_CSV_HEADER),
        ("ports.csv", rdmasim_experiment::output::PORTS_CSV_HEADER),
        (
            "messages.csv",
            rdmasim_experiment::messages::MESSAGES_CSV_HEADER,
        ),
        (
            "timeseries.csv",
            rdmasim_experiment::output::timeseries::PORTS_HEADER,
        ),
        (
            "qp_rates.csv",
            rdmasim_experiment::output::timeseries::QP_HEADER,
        ),
        (
            "bifrost_trace.csv",
            rdmasim_experiment::output::BIFROST_TRACE_HEADER,
        ),
    ] {
        let header: String = header.split_whitespace().collect();
        assert!(
            README.contains(&format!("- `{file}`: `{header}`")),
            "README.md does not list {file}'s columns as `{header}`"
        );
    }
}

#[test]
fn readme_says_how_to_keep_columns_with_empty_cells_integer() {
    for hint in [
        r#"dtype={"end_ns": "Int64", "fct_ns": "Int64"}"#,
        r#"dtype={"class": "Int64"}"#,
    ] {
        assert!(README.contains(hint), "README.md lacks {hint}");
    }
}
