//! Which package on PyPI provides an importable module, for a test run that could not
//! import one: most often the package of the module's own name, and for the well-known
//! few whose names differ (`yaml` from PyYAML, `PIL` from Pillow) that one, so that the
//! install command a failure gives can be run as it stands.

/// Top-level names that many packages share (namespace packages): the package is named by
/// the module one level down (`zope.interface`, `ruamel.yaml`).
const SHARED_TOPS: &[&str] = &[
    "azure",
    "backports",
    "google",
    "jaraco",
    "ruamel",
    "sphinxcontrib",
    "zc",
    "zope",
];

/// The part of the missing module `module` (`No module named 'google.protobuf.message'`)
/// that a package provides: its top-level name, or two levels under a shared top.
pub(super) fn provided(module: &str) -> &str {
    let mut dots = module.match_indices('.').map(|(at, _)| at);
    let top_end = dots.next().unwrap_or(module.len());
    match SHARED_TOPS.contains(&&module[..top_end]) {
        true => &module[..dots.next().unwrap_or(module.len())],
        false => &module[..top_end],
    }
}

/// Modules whose usual package has another name, by the name [`provided`] gives them.
const NAMED_OTHERWISE: &[(&str, &str)] = &[
    ("Crypto", "pycryptodome"),
    ("MySQLdb", "mysqlclient"),
    ("OpenSSL", "pyOpenSSL"),
    ("PIL", "Pillow"),
    ("attr", "attrs"),
    ("bs4", "beautifulsoup4"),
    ("cv2", "opencv-python"),
    ("dateutil", "python-dateutil"),
    ("docx", "python-docx"),
    ("dotenv", "python-dotenv"),
    ("git", "GitPython"),
    ("google.protobuf", "protobuf"),
    ("hamcrest", "PyHamcrest"),
    ("jose", "python-jose"),
    ("jwt", "PyJWT"),
    ("magic", "python-magic"),
    ("nacl", "PyNaCl"),
    ("pkg_resources", "setuptools"),
    ("pptx", "python-pptx"),
    ("railroad", "railroad-diagrams"),
    ("serial", "pyserial"),
    ("skimage", "scikit-image"),
    ("sklearn", "scikit-learn"),
    ("socks", "PySocks"),
    ("usb", "pyusb"),
    ("websocket", "websocket-client"),
    ("win32api", "pywin32"),
    ("yaml", "PyYAML"),
    ("zmq", "pyzmq"),
];

/// The package that usually provides module `name` (as [`provided`] gives it): the one
/// known to provide it, else the package of its name (`zope-interface` for
/// `zope.interface`).
pub(super) fn likely_package(name: &str) -> String {
    match NAMED_OTHERWISE.iter().find(|(m, _)| *m == name) {
        Some((_, package)) => package.to_string(),
        None => name.replace('.', "-"),
    }
}

#[cfg(test)]
mod tests {
    use super::{likely_package, provided};

    #[test]
    fn a_module_comes_from_its_own_name_unless_it_is_known_otherwise() {
        assert_eq!(likely_package("pretend"), "pretend");
        assert_eq!(likely_package("yaml"), "PyYAML");
        assert_eq!(likely_package("dateutil"), "python-dateutil");
        assert_eq!(likely_package("zope.interface"), "zope-interface");
        assert_eq!(likely_package("google.protobuf"), "protobuf");
    }

    #[test]
    fn a_shared_top_level_name_names_no_package_of_its_own() {
        assert_eq!(provided("freezegun.api"), "freezegun");
        assert_eq!(provided("yaml"), "yaml");
        assert_eq!(provided("google.protobuf.message"), "google.protobuf");
        assert_eq!(provided("ruamel.yaml"), "ruamel.yaml");
        assert_eq!(provided("zope"), "zope");
    }
}
