//! A test sequence found and resolved for the commands that run one
//! (`tranche run`, `calibrate --check`): the file, the embedded example of
//! that bare name, or the embedded default, then `config::resolve` in one
//! call, a file's error explained by what the file is (`input_kind`).

use anyhow::{bail, Result};
use std::path::Path;
use tranche_config as config;
use tranche_config::resolve::Resolved;

/// The text of a test sequence and where it came from: `file` (or the
/// embedded example of that bare name where no such file is here, said on
/// stderr unless `quiet`), or the embedded default.
fn sequence_text(file: Option<&Path>, quiet: bool) -> Result<(String, String)> {
    let Some(path) = file else {
        return Ok((
            config::DEFAULT_YAML.to_owned(),
            config::DEFAULT_SOURCE.to_owned(),
        ));
    };
    if let Some(e) = crate::examples::embedded(path) {
        if !quiet {
            tranche_cli::errln!("{}", crate::examples::note(path));
        }
        return Ok((e.text.to_owned(), format!("{} (embedded)", e.name)));
    }
    if let Some(hint) = crate::examples::other_command(path, false) {
        bail!(hint);
    }
    let text = config::read_sequence(path)
        .map_err(|e| crate::input_kind::explain(path, e, "a YAML test sequence"))?;
    Ok((text, path.display().to_string()))
}

/// A test sequence from `file` (as [`sequence_text`] finds it) resolved
/// with the sizes `(validators, cores, blocks)`, the small mode when
/// `TRANCHE_SMALL` is set, and `seed` (`config::resolve`); a file's
/// error explained by what the file is.
pub fn resolve_file(
    file: Option<&Path>,
    (validators, cores, blocks): (Option<u32>, Option<u32>, Option<u32>),
    allow_vacuous: bool,
    seed: u64,
    quiet: bool,
) -> Result<Resolved> {
    let (text, source) = sequence_text(file, quiet)?;
    let ask = config::resolve::Ask {
        text: &text,
        source: &source,
        validators,
        cores,
        blocks,
        small: crate::small::on(),
        allow_vacuous,
        seed,
    };
    let resolved = config::resolve::resolve(&ask);
    // The text is let go before an error is explained: `explain` reads
    // the file again, and a large one held twice would not fit the memory
    // a bad input may take (`tests/bench/inputs.rs`).
    drop(text);
    resolved.map_err(|e| match (e, file) {
        (config::resolve::ResolveError::Config(e), Some(path))
            if crate::examples::embedded(path).is_none() =>
        {
            crate::input_kind::explain(path, e, "a YAML test sequence")
        }
        (e, _) => e.into(),
    })
}
