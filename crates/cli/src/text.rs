//! Terminal text: what an error line may show of user input. A value from
//! a file or a flag is shown with its control characters escaped and cut
//! after [`SHOWN_BYTES`] bytes, with its length (`"AAAA…" (10 000 000
//! bytes)`), so that an error line stays one short line whatever the input;
//! a message from a library (the YAML parser's, serde's) goes through
//! [`one_line`], which cuts every quoted run in it the same way and bounds
//! the whole at [`LINE_BYTES`].

/// Most bytes of a user's value an error line shows (escaped), before `…`.
pub const SHOWN_BYTES: usize = 80;

/// Most bytes of a library's message [`one_line`] keeps: its start and its
/// end (where a location such as `at line 3 column 7` stands).
pub const LINE_BYTES: usize = 400;

/// `message` with its line breaks and runs of white space made single
/// spaces and every other control character escaped
/// ([`escape_controls`]), each quoted run (`"…"` or `` `…` ``) longer than
/// [`SHOWN_BYTES`] cut with its length, and the whole at most about
/// [`LINE_BYTES`] bytes (its middle cut), so that an error quoting it
/// stays one short line and cannot drive a terminal.
pub fn one_line(message: &str) -> String {
    let joined = message.split_whitespace().collect::<Vec<_>>().join(" ");
    bound_line(&cut_quoted_runs(&escape_controls(&joined)))
}

/// `text` with every control character escaped (`\n`, `\u{1b}`, ...), so
/// that it stays one line and cannot drive a terminal.
pub fn escape_controls(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// `value` between double quotes, escaped as Rust's `{:?}` does for the
/// characters that matter here (`"`, `\`, control characters) and cut
/// after [`SHOWN_BYTES`] bytes with its length: `"AAAA…" (10 000 000
/// bytes)`.
pub fn quote(value: &str) -> String {
    let (shown, cut) = shown(value, true);
    format!("\"{shown}\"{}", length_note(value, cut))
}

/// `value` between backticks (a key, a tag), control characters escaped,
/// cut after [`SHOWN_BYTES`] bytes with its length: `` `AAAA…` (10 000 000
/// bytes) ``.
pub fn code(value: &str) -> String {
    code_after("", value)
}

/// [`code`] with `prefix` (ours, not cut) inside the backticks first:
/// `` `n_cores: AAAA…` (10 000 000 bytes) ``.
pub fn code_after(prefix: &str, value: &str) -> String {
    let (shown, cut) = shown(value, false);
    format!("`{prefix}{shown}`{}", length_note(value, cut))
}

/// `value` as a bare word of an error line (after `=`, before `:`),
/// control characters escaped, cut after [`SHOWN_BYTES`] bytes with its
/// length: `AAAA… (10 000 000 bytes)`.
pub fn bare(value: &str) -> String {
    let (shown, cut) = shown(value, false);
    format!("{shown}{}", length_note(value, cut))
}

/// A path from the command line or a file, shown as [`bare`] shows a
/// value: control characters escaped, cut after [`SHOWN_BYTES`] bytes
/// with its length. Every error line and label that names a user's path
/// shows it so.
pub fn path(path: &std::path::Path) -> String {
    bare(&path.display().to_string())
}

/// At most [`SHOWN_BYTES`] bytes of `value`, escaped (`"` and `\` too when
/// `quotes`), then `…` if that was not all of it; and whether it was cut.
fn shown(value: &str, quotes: bool) -> (String, bool) {
    let mut out = String::new();
    for c in value.chars() {
        let escaped = match c {
            '"' | '\\' if quotes => c.escape_default().to_string(),
            c if c.is_control() => c.escape_default().to_string(),
            c => c.to_string(),
        };
        if out.len() + escaped.len() > SHOWN_BYTES {
            out.push('…');
            return (out, true);
        }
        out.push_str(&escaped);
    }
    (out, false)
}

/// ` (N bytes)` after a value that was cut, else nothing.
fn length_note(value: &str, cut: bool) -> String {
    if cut {
        format!(" ({} bytes)", grouped(value.len()))
    } else {
        String::new()
    }
}

/// `n` and its noun, singular for one: `1 block`, `3 blocks`, `2
/// processes`. The one rule for a count beside its noun in every line the
/// commands print (tables, pages, notes, errors).
pub fn counted<N: std::fmt::Display + PartialEq + From<u8>>(n: N, noun: &str) -> String {
    if n == N::from(1) {
        format!("1 {noun}")
    } else {
        format!("{n} {}", plural(noun))
    }
}

/// The plural of a noun the commands count: `es` after a hiss
/// (`process`, `address`, `batch`), `ies` for a consonant's `y`
/// (`delivery`), `series` as it is, else `s`.
fn plural(noun: &str) -> String {
    let consonant_y = noun.len() > 1
        && noun.ends_with('y')
        && !noun[..noun.len() - 1].ends_with(['a', 'e', 'i', 'o', 'u']);
    if noun.ends_with("series") {
        noun.to_owned()
    } else if consonant_y {
        format!("{}ies", &noun[..noun.len() - 1])
    } else if ["s", "x", "ch", "sh"].iter().any(|e| noun.ends_with(e)) {
        format!("{noun}es")
    } else {
        format!("{noun}s")
    }
}

/// `n` with its digits in groups of three: `10 000 000`.
pub fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let (head, rest) = digits.split_at(digits.len() % 3);
    let mut out = head.to_owned();
    for group in rest.as_bytes().chunks(3) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(group.iter().map(|&b| char::from(b)));
    }
    out
}

/// The longest prefix of `s` of at most `max` bytes, on a character
/// boundary.
fn prefix(s: &str, max: usize) -> &str {
    let mut end = max.min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// The longest suffix of `s` of at most `max` bytes, on a character
/// boundary.
fn suffix(s: &str, max: usize) -> &str {
    let mut start = s.len().saturating_sub(max);
    while !s.is_char_boundary(start) {
        start += 1;
    }
    &s[start..]
}

/// `message` (already escaped) with each quoted run longer than
/// [`SHOWN_BYTES`] cut: `"AAAA…" (10 000 000 bytes)`. A double-quoted run
/// ends at the next `"` not escaped by `\`, a backticked one at the next
/// backtick; an unclosed run lasts to the end.
fn cut_quoted_runs(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(4 * LINE_BYTES));
    let mut rest = message;
    while let Some(open) = rest.find(['"', '`']) {
        let mark = rest.as_bytes()[open] as char;
        out.push_str(&rest[..=open]);
        let body = &rest[open + 1..];
        let mut escaped = false;
        let close = body.char_indices().find_map(|(i, c)| {
            let closes = c == mark && !escaped;
            escaped = mark == '"' && c == '\\' && !escaped;
            closes.then_some(i)
        });
        let run = &body[..close.unwrap_or(body.len())];
        if run.len() > SHOWN_BYTES {
            out.push_str(prefix(run, SHOWN_BYTES));
            out.push('…');
            out.push(mark);
            out.push_str(&format!(" ({} bytes)", grouped(run.len())));
        } else {
            out.push_str(run);
            if close.is_some() {
                out.push(mark);
            }
        }
        rest = match close {
            Some(i) => &body[i + 1..],
            None => "",
        };
    }
    out.push_str(rest);
    out
}

/// `line` if at most [`LINE_BYTES`] bytes; else its start and its end with
/// ` … ` between.
fn bound_line(line: &str) -> String {
    if line.len() <= LINE_BYTES {
        return line.to_owned();
    }
    let head = prefix(line, LINE_BYTES * 2 / 3);
    let tail = suffix(line, LINE_BYTES / 3 - 5);
    format!("{head} … {tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_agrees_with_its_noun() {
        assert_eq!(counted(1u32, "block"), "1 block");
        assert_eq!(counted(0usize, "block"), "0 blocks");
        assert_eq!(counted(3u64, "validator"), "3 validators");
        assert_eq!(counted(1usize, "process"), "1 process");
        assert_eq!(counted(2usize, "process"), "2 processes");
        assert_eq!(counted(2u32, "address"), "2 addresses");
        assert_eq!(counted(4usize, "series"), "4 series");
        assert_eq!(counted(1usize, "series"), "1 series");
        assert_eq!(counted(2u64, "delivery"), "2 deliveries");
        assert_eq!(counted(2u64, "day"), "2 days");
    }

    #[test]
    fn a_long_value_is_shown_cut_with_its_length() {
        let big = "A".repeat(10_000_000);
        let q = quote(&big);
        assert_eq!(
            q,
            format!("\"{}…\" (10 000 000 bytes)", "A".repeat(SHOWN_BYTES))
        );
        assert_eq!(code("x"), "`x`");
        assert_eq!(
            code_after("k: ", &big),
            format!("`k: {}…` (10 000 000 bytes)", "A".repeat(SHOWN_BYTES))
        );
        assert_eq!(quote("a\"b\\c\n"), r#""a\"b\\c\n""#);
        assert!(code(&big).starts_with("`AAA") && code(&big).ends_with("…` (10 000 000 bytes)"));
        assert_eq!(bare("12"), "12");
        // Escapes count: a value of control characters is cut as short.
        let controls = quote(&"\u{1}".repeat(1_000));
        assert!(controls.len() < SHOWN_BYTES + 40, "{controls}");
        // A cut never splits a character.
        let wide = quote(&"é".repeat(100));
        assert!(
            wide.contains('…') && wide.ends_with("(200 bytes)"),
            "{wide}"
        );
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_000), "1 000");
        assert_eq!(grouped(123_456_789), "123 456 789");
    }

    #[test]
    fn a_librarys_message_is_one_short_line() {
        let big = "B".repeat(1_000_000);
        let m = one_line(&format!(
            "invalid type: string \"{big}\", expected u32\n at line 2 column 5"
        ));
        assert!(m.len() < 200, "{}", m.len());
        assert!(
            m.starts_with("invalid type: string \"BBB")
                && m.ends_with("…\" (1 000 000 bytes), expected u32 at line 2 column 5"),
            "{m}"
        );
        let m = one_line(&format!("unknown field `{big}`, expected `a`"));
        assert!(m.ends_with("…` (1 000 000 bytes), expected `a`"), "{m}");
        // An escaped quote does not end a run; an unclosed run is cut too.
        let m = one_line(&format!("x \"a\\\"{big}"));
        assert!(m.len() < 200 && m.starts_with("x \"a\\\"BBB"), "{m}");
        // Nothing quoted, and still bounded, its end kept.
        let m = one_line(&format!("{big} at line 9 column 1"));
        assert!(
            m.len() <= LINE_BYTES + 8 && m.ends_with("at line 9 column 1"),
            "{m}"
        );
        assert_eq!(one_line("a\n  b\t\u{1b}[2J"), "a b \\u{1b}[2J");
        assert_eq!(
            one_line("short \"quoted\" `code`"),
            "short \"quoted\" `code`"
        );
    }
}
