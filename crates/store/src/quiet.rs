//! A panic inside a database library, caught and returned as a value
//! without the default hook printing it and its backtrace: redb can panic
//! on a damaged file (an `unreachable!` in its btree iterators), and a
//! damaged database must be one line, not a backtrace. Only panics on the
//! calling thread, inside `catch`, are kept quiet; every other panic goes
//! to the hook that was installed before.

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

fn install() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                previous(info);
            }
        }));
    });
}

/// `f`'s value, or the message of its panic.
pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    install();
    let was = QUIET.with(|q| q.replace(true));
    let r = catch_unwind(AssertUnwindSafe(f));
    QUIET.with(|q| q.set(was));
    r.map_err(|p| {
        p.downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".to_owned())
    })
}

/// `f`'s result, a panic inside it taken as damage of the database
/// `describe`d (`redb database at PATH`): a `Corrupt` error naming it.
pub fn read<T>(
    describe: impl FnOnce() -> String,
    f: impl FnOnce() -> Result<T, tranche_voting::StoreError>,
) -> Result<T, tranche_voting::StoreError> {
    catch(f).unwrap_or_else(|p| {
        Err(tranche_voting::StoreError::Corrupt(format!(
            "{}: {}",
            describe(),
            crate::owner::short(&p)
        )))
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_panic_is_a_value() {
        assert_eq!(super::catch(|| 7), Ok(7));
        let e = super::catch(|| -> u8 { panic!("damaged page") }).unwrap_err();
        assert_eq!(e, "damaged page");
    }
}
