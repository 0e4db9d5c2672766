//! A test sequence with its sizes replaced (`tranche run --validators
//! --cores --blocks`, each grid point of `tranche sweep run`): the YAML's
//! every `TestConfiguration` step with the keys set, written back and then
//! parsed and checked like any file, so a size the configuration rules
//! refuse is an error naming the key and the bound.

use anyhow::{bail, Context, Result};

/// `text` with each `(key, value)` set in every step of its
/// `TestConfiguration`.
pub fn resized(text: &str, source: &str, sizes: &[(&str, u32)]) -> Result<String> {
    let mut doc = tranche_config::yaml::read(text).map_err(|e| anyhow::anyhow!("{source}: {e}"))?;
    let Some(steps) = doc
        .get_mut("TestConfiguration")
        .and_then(|v| v.as_sequence_mut())
    else {
        bail!("{source}: no TestConfiguration step to resize");
    };
    for step in steps.iter_mut().filter_map(|v| v.as_mapping_mut()) {
        for &(key, value) in sizes {
            step.insert(key.into(), value.into());
        }
    }
    yaml_serde::to_string(&doc).context("re-encoding the resized steps")
}

/// The `(key, value)` pairs of the flags given.
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
    use tranche_config as config;

    #[test]
    fn every_step_takes_the_sizes_and_the_rules_still_apply() {
        let text = resized(
            config::DEFAULT_YAML,
            "d",
            &sizes(Some(60), Some(12), Some(2)),
        )
        .unwrap();
        let cfg = config::parse(&text, "d").unwrap();
        let s = &cfg.steps[0];
        assert_eq!((s.n_validators, s.n_cores, s.num_blocks), (60, 12, 2));
        let base = &config::embedded_default().unwrap().steps[0];
        assert_eq!(s.session, base.session);
        let text = resized(config::DEFAULT_YAML, "d", &sizes(Some(60), Some(40), None)).unwrap();
        let e = config::parse(&text, "d").unwrap_err().to_string();
        assert!(e.contains("at most 12 cores"), "{e}");
    }
}
