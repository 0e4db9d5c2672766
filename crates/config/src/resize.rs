//! A test sequence with its sizes replaced (`tranche run --validators
//! --cores --blocks`, each grid point of `tranche sweep run`): the YAML's
//! every `TestConfiguration` step with the keys set, written back as text
//! to be parsed and checked like any file ([`crate::parse`]), so that a
//! size the configuration rules refuse is an error naming the key and the
//! bound. The text is read with the one bounded reader of every YAML
//! input ([`crate::yaml::read`]).

/// Why a test sequence could not be resized (one line, naming the file).
#[derive(Debug, thiserror::Error)]
pub enum ResizeError {
    /// The text is beyond a bound of every YAML input, or not YAML.
    #[error("{source_name}: {error}")]
    Read {
        /// The file, as errors name it.
        source_name: String,
        /// What the reader refused.
        error: crate::yaml::ReadError,
    },
    /// No `TestConfiguration` list to resize.
    #[error("{source_name}: no TestConfiguration step to resize")]
    NoSteps {
        /// The file, as errors name it.
        source_name: String,
    },
    /// The resized tree could not be written back as YAML.
    #[error("re-encoding the resized steps: {0}")]
    Encode(String),
}

/// `text` with each `(key, value)` set in every step of its
/// `TestConfiguration`; `source` names the file in errors.
pub fn resized(text: &str, source: &str, sizes: &[(&str, u32)]) -> Result<String, ResizeError> {
    let mut doc = crate::yaml::read(text).map_err(|error| ResizeError::Read {
        source_name: source.to_owned(),
        error,
    })?;
    let Some(steps) = doc
        .get_mut("TestConfiguration")
        .and_then(|v| v.as_sequence_mut())
    else {
        return Err(ResizeError::NoSteps {
            source_name: source.to_owned(),
        });
    };
    for step in steps.iter_mut().filter_map(|v| v.as_mapping_mut()) {
        for &(key, value) in sizes {
            step.insert(key.into(), value.into());
        }
    }
    yaml_serde::to_string(&doc).map_err(|e| ResizeError::Encode(e.to_string()))
}

/// The `(key, value)` pairs of the size flags given (`--validators`,
/// `--cores`, `--blocks`).
pub fn sizes(
    validators: Option<u32>,
    cores: Option<u32>,
    blocks: Option<u32>,
) -> Vec<(&'static str, u32)> {
    [
        ("n_validators", validators),
        ("n_cores", cores),
        ("num_blocks", blocks),
    ]
    .into_iter()
    .filter_map(|(k, v)| v.map(|v| (k, v)))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_step_takes_the_sizes_and_the_rules_still_apply() {
        let text = resized(
            crate::DEFAULT_YAML,
            "d",
            &sizes(Some(60), Some(12), Some(2)),
        )
        .unwrap();
        let cfg = crate::parse(&text, "d").unwrap();
        let s = &cfg.steps[0];
        assert_eq!((s.n_validators, s.n_cores, s.num_blocks), (60, 12, 2));
        let base = &crate::embedded_default().unwrap().steps[0];
        assert_eq!(s.session, base.session);
        let text = resized(crate::DEFAULT_YAML, "d", &sizes(Some(60), Some(40), None)).unwrap();
        let e = crate::parse(&text, "d").unwrap_err().to_string();
        assert!(e.contains("at most 12 cores"), "{e}");
    }

    #[test]
    fn a_file_without_steps_or_beyond_the_bounds_is_named() {
        let e = resized(
            "!ApprovalNetwork\nn_validators: 3\n",
            "f.yaml",
            &sizes(Some(6), None, None),
        )
        .unwrap_err()
        .to_string();
        assert_eq!(e, "f.yaml: no TestConfiguration step to resize");
        let deep = format!(
            "TestConfiguration: {}{}\n",
            "[".repeat(100),
            "]".repeat(100)
        );
        let e = resized(&deep, "f.yaml", &[]).unwrap_err().to_string();
        assert!(
            e.starts_with("f.yaml: nesting deeper than 64 levels"),
            "{e}"
        );
    }
}
