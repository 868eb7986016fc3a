//! Telling a service manager how the mount is doing: systemd's readiness protocol
//! (`Type=notify` units). Outside systemd (no `NOTIFY_SOCKET`) every call does nothing.

use sd_notify::NotifyState;

/// The mount answers: `systemctl start` may return, units ordered after this one may start.
pub fn ready(mountpoint: &str) {
    let status = format!("serving {mountpoint}");
    send(&[NotifyState::Ready, NotifyState::Status(&status)]);
}

/// The mount is being taken down (a signal, an unmount).
pub fn stopping() {
    send(&[NotifyState::Stopping]);
}

fn send(states: &[NotifyState]) {
    // A failure here must not end the mount: the service manager will say it timed out.
    if let Err(e) = sd_notify::notify(states) {
        crate::log::line(&format!("could not notify the service manager: {e}"));
    }
}
