//! The page of `tranche history --html`: per series its table and one
//! plot per headline figure over the results in date order (a line per
//! layout or grid point, the report crate's plotters charts), each step
//! `compare` calls a regression marked by a vertical line named after its
//! commit. Self-contained: inline SVG, no script, no external resource.

use super::table::{heading, series_table};
use super::Series;
use crate::html::escape;
use crate::html_chart::{line_chart_named, Line, LineChart};
use anyhow::Result;
use tranche_cli::text::counted;

/// Each result's name on the x axis: its commit (12 digits) and day.
fn x_names(s: &Series) -> Vec<String> {
    s.points
        .iter()
        .map(|p| {
            let commit = tranche_cli::text::bare(p.commit.get(..12).unwrap_or(&p.commit));
            format!("{commit} {}", p.date.get(..10).unwrap_or(&p.date))
        })
        .collect()
}

/// The plots of one series.
fn plots(s: &Series) -> Result<String> {
    let mut out = String::new();
    let x = |i: usize| (i + 1) as f64;
    for (f, (figure, _)) in s.figures().iter().enumerate() {
        let mut lines: Vec<Line> = Vec::new();
        for (i, p) in s.points.iter().enumerate() {
            for line in &p.lines {
                let Some(y) = line.values.get(f).copied().flatten() else {
                    continue;
                };
                match lines.iter_mut().find(|l| l.name == line.label) {
                    Some(l) => l.points.push((x(i), y)),
                    None => lines.push(Line {
                        name: line.label.clone(),
                        layout: line.label.clone(),
                        points: vec![(x(i), y)],
                    }),
                }
            }
        }
        if lines.is_empty() {
            continue;
        }
        let top = lines
            .iter()
            .flat_map(|l| l.points.iter().map(|p| p.1))
            .fold(0.0, f64::max);
        let marks: Vec<Line> = s
            .points
            .iter()
            .enumerate()
            .filter(|(_, p)| p.step.is_regression())
            .map(|(i, p)| Line {
                name: format!(
                    "regression at #{} ({})",
                    i + 1,
                    p.commit.get(..12).unwrap_or(&p.commit)
                ),
                layout: String::new(),
                points: vec![(x(i), 0.0), (x(i), top)],
            })
            .collect();
        let chart = LineChart {
            title: figure,
            x_desc: "commit and date (meta.date), in date order",
            y_desc: figure,
            y_from_data: false,
        };
        out.push_str(&line_chart_named(&chart, &lines, &marks, &x_names(s))?);
        out.push('\n');
    }
    Ok(out)
}

/// Largest page written: past it, series keep their tables but lose their
/// plots, and a note says how many (10 000 results of as many
/// configurations would otherwise make a page of hundreds of MB).
pub const MAX_PAGE_BYTES: usize = 32 << 20;

/// The page.
pub fn render(series: &[Series], skipped: &[String], command: &str) -> Result<String> {
    Ok(render_noting(series, skipped, command)?.0)
}

/// The page, and the note it ends with when it reached
/// [`MAX_PAGE_BYTES`] and left plots out, for the command to say on
/// stderr too (a page cut said so only inside the HTML).
pub fn render_noting(
    series: &[Series],
    skipped: &[String],
    command: &str,
) -> Result<(String, Option<String>)> {
    render_within(series, skipped, command, MAX_PAGE_BYTES)
}

/// [`render_noting`] with the plots left out past `max_bytes`.
fn render_within(
    series: &[Series],
    skipped: &[String],
    command: &str,
    max_bytes: usize,
) -> Result<(String, Option<String>)> {
    let mut body = String::new();
    let mut unplotted = 0;
    for s in series {
        body.push_str(&format!(
            "<h2>{}</h2>\n<pre>{}</pre>\n",
            escape(&heading(s)),
            escape(&series_table(s)),
        ));
        if body.len() < max_bytes {
            body.push_str(&plots(s)?);
        } else {
            unplotted += 1;
        }
    }
    let mut notes: String = skipped
        .iter()
        .map(|l| format!("<p>note: {}</p>\n", escape(l)))
        .collect();
    // Why series of one name are followed apart, as the text says.
    for line in super::apart(series) {
        notes.push_str(&format!("<p>not comparable: {}</p>\n", escape(&line)));
    }
    let cut = (unplotted > 0).then(|| {
        format!(
            "note: the plots of {} {} left out: the page reached its limit of {} (name fewer \
             results)",
            counted(unplotted, "series"),
            if unplotted == 1 { "is" } else { "are" },
            if max_bytes >= 1 << 20 {
                format!("{} MiB", max_bytes >> 20)
            } else {
                counted(max_bytes, "byte")
            }
        )
    });
    if let Some(note) = &cut {
        notes.push_str(&format!("<p>{}</p>\n", escape(note)));
    }
    let page = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>tranche history</title>\n\
         <style>body{{font-family:sans-serif;margin:2em;max-width:1100px}}pre{{font-size:13px;overflow-x:auto}}\
         svg{{max-width:100%;height:auto}}</style></head><body>\n\
         <h1>tranche history</h1>\n<pre>commit: {}\ncommand: {}</pre>\n{body}{notes}</body></html>\n",
        escape(crate::meta::COMMIT),
        escape(command),
    );
    Ok((page, cut))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::ResultFile;

    /// Issue 60: a page cut at its limit said so only inside the HTML; the
    /// command gets the note to say on stderr too.
    #[test]
    fn a_cut_page_gives_its_note_to_the_command() {
        let cfg = tranche_config::embedded_default().unwrap();
        let entries = (1..=3)
            .map(|d| {
                let mut meta = crate::meta::collect("redb", d, &cfg.steps);
                meta.date = format!("2026-01-0{d}T00:00:00Z");
                let runs = vec![crate::fixture::run()];
                super::super::Entry {
                    file: format!("{d}.json"),
                    result: ResultFile::Run(crate::ReportFile::with_meta(runs, meta)),
                }
            })
            .collect();
        let (series, _) = super::super::build(entries, &Default::default());
        assert!(series.len() > 1, "{}", series.len());
        let (page, note) = render_noting(&series, &[], "h").unwrap();
        assert_eq!(note, None);
        assert!(!page.contains("left out"));
        let (page, note) = render_within(&series, &[], "h", 1).unwrap();
        let note = note.unwrap();
        assert!(
            note.starts_with("note: the plots of") && note.contains("limit of 1 byte"),
            "{note}"
        );
        assert!(page.contains(&format!("<p>{}</p>", escape(&note))));
    }
}
