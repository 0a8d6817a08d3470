#if canImport(AppKit) && !targetEnvironment(macCatalyst)
    import AppKit

    // The episode's bindings for AppKit views: thin wrappers over `Box.bind` and `Box.observe`. The graph's actor is
    // the main actor (the default), where AppKit must be used.

    extension Box where A: NSView {
        /// Hides the view while `value` is true.
        @MainActor public func bindIsHidden(to value: I<Bool>) {
            bind(\.isHidden, to: value) { view, hidden in MainActor.assumeIsolated { view.isHidden = hidden } }
        }

        /// Adds `child`'s view as a subview; this box keeps the child's box (and its bindings) alive.
        @MainActor public func addSubview<B: NSView>(_ child: Box<B>) {
            add(child) { view, subview in MainActor.assumeIsolated { view.addSubview(subview) } }
        }
    }

    extension Box where A: NSProgressIndicator {
        /// Spins while `value` is true.
        @MainActor public func bindIsAnimating(to value: I<Bool>) {
            observe(value) { view, animating in
                MainActor.assumeIsolated { animating ? view.startAnimation(nil) : view.stopAnimation(nil) }
            }
        }
    }

    extension Box where A: NSTextField {
        /// Shows `value` as the field's text.
        @MainActor public func bindText(to value: I<String>) {
            bind(\.stringValue, to: value) { view, text in MainActor.assumeIsolated { view.stringValue = text } }
        }
    }

    extension Box where A: NSImageView {
        /// Shows `value` as the image.
        @MainActor public func bindImage(to value: I<NSImage?>) {
            bind(\.image, to: value) { view, image in MainActor.assumeIsolated { view.image = image } }
        }
    }

    extension Box where A: NSControl {
        /// Enables the control while `value` is true.
        @MainActor public func bindIsEnabled(to value: I<Bool>) {
            bind(\.isEnabled, to: value) { view, enabled in MainActor.assumeIsolated { view.isEnabled = enabled } }
        }
    }

    extension Box where A: NSButton {
        /// Turns the button on (a like button's filled heart) while `value` is true.
        @MainActor public func bindIsSelected(to value: I<Bool>) {
            bind(\.state, to: value) { view, selected in MainActor.assumeIsolated { view.state = selected ? .on : .off }
            }
        }
    }
#endif
