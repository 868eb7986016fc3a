//! Names a package's `__init__.py` takes from another module and so offers as its own
//! (`from ._hooks import HookimplMarker`, listed in `__all__` or not): where Python finds
//! what such a name stands for, as the module it is imported from and its name there.
//! Dotted lookup (`paths.rs`) reads them so that `pluggy.HookimplMarker.py` leads to the
//! definition in `pluggy/_hooks.py`, where a write to it lands.

use crate::python::imports;

/// Where the names `local` may come from, as `__init__.py` of package `package` (dotted,
/// `pluggy`) imports it: each as the dotted module it is imported from (in parts) and the
/// name there, in the order the imports appear (a `try`'s import before its `except`
/// fallback). A star import names nothing in particular and a plain `import x` binds a
/// module of its own, not a name of the package: neither is one.
pub(super) fn origins(init: &str, package: &str, local: &str) -> Vec<(Vec<String>, String)> {
    imports(init)
        .into_iter()
        .filter(|import| !import.star && import.local == local)
        .filter_map(|import| {
            let mut parts: Vec<String> = if import.level == 0 {
                Vec::new()
            } else {
                // `.` is the package itself (this is its `__init__`), each dot more one
                // package up.
                let mut parts: Vec<String> = package.split('.').map(str::to_string).collect();
                let climb = import.level as usize - 1;
                if climb >= parts.len() {
                    return None;
                }
                parts.truncate(parts.len() - climb);
                parts
            };
            parts.extend(
                import
                    .target
                    .split('.')
                    .filter(|p| !p.is_empty())
                    .map(str::to_string),
            );
            let name = parts.pop()?;
            (!parts.is_empty()).then_some((parts, name))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(init: &str, package: &str, local: &str) -> Vec<String> {
        origins(init, package, local)
            .into_iter()
            .map(|(module, name)| format!("{} {name}", module.join(".")))
            .collect()
    }

    #[test]
    fn a_name_is_found_in_the_module_it_is_imported_from() {
        let init = "from ._hooks import HookimplMarker\nfrom ._hooks import HookspecMarker as Spec\n\
                    from pluggy._manager import PluginManager\nfrom .. import up\n\
                    from . import _tracing\nimport pluggy._result as result\n";
        assert_eq!(
            shown(init, "pluggy", "HookimplMarker"),
            ["pluggy._hooks HookimplMarker"]
        );
        assert_eq!(
            shown(init, "pluggy", "Spec"),
            ["pluggy._hooks HookspecMarker"]
        );
        assert_eq!(
            shown(init, "pluggy", "PluginManager"),
            ["pluggy._manager PluginManager"]
        );
        assert_eq!(shown(init, "pluggy", "_tracing"), ["pluggy _tracing"]);
        assert_eq!(shown(init, "pluggy", "result"), ["pluggy _result"]);
        assert_eq!(shown(init, "a.b", "up"), ["a up"]);
        // Above the top there is nothing to find.
        assert!(shown(init, "pluggy", "up").is_empty());
        assert!(shown(init, "pluggy", "HookspecMarker").is_empty());
    }

    #[test]
    fn star_imports_and_plain_imports_name_nothing_of_the_package() {
        let init = "from ._hooks import *\nimport os\ntry:\n    from ._version import version\n\
                    except ImportError:\n    from ._fallback import version\n";
        assert!(shown(init, "pkg", "os").is_empty());
        assert!(shown(init, "pkg", "HookimplMarker").is_empty());
        assert_eq!(
            shown(init, "pkg", "version"),
            ["pkg._version version", "pkg._fallback version"]
        );
    }
}
