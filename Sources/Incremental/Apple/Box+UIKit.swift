#if canImport(UIKit)
    import UIKit

    // The episode's bindings for UIKit views: thin wrappers over `Box.bind` and `Box.observe`. The graph's actor is
    // the main actor (the default), where UIKit must be used.

    extension Box where A: UIView {
        /// Hides the view while `value` is true.
        @MainActor public func bindIsHidden(to value: I<Bool>) {
            bind(\.isHidden, to: value) { view, hidden in MainActor.assumeIsolated { view.isHidden = hidden } }
        }

        /// Adds `child`'s view as a subview; this box keeps the child's box (and its bindings) alive.
        @MainActor public func addSubview<B: UIView>(_ child: Box<B>) {
            add(child) { view, subview in MainActor.assumeIsolated { view.addSubview(subview) } }
        }
    }

    extension Box where A: UIActivityIndicatorView {
        /// Spins while `value` is true.
        @MainActor public func bindIsAnimating(to value: I<Bool>) {
            observe(value) { view, animating in
                MainActor.assumeIsolated { animating ? view.startAnimating() : view.stopAnimating() }
            }
        }
    }

    extension Box where A: UILabel {
        /// Shows `value` as the label's text.
        @MainActor public func bindText(to value: I<String>) {
            bind(\.text, to: value) { view, text in MainActor.assumeIsolated { view.text = text } }
        }
    }

    extension Box where A: UIImageView {
        /// Shows `value` as the image.
        @MainActor public func bindImage(to value: I<UIImage?>) {
            bind(\.image, to: value) { view, image in MainActor.assumeIsolated { view.image = image } }
        }
    }

    extension Box where A: UIControl {
        /// Enables the control while `value` is true.
        @MainActor public func bindIsEnabled(to value: I<Bool>) {
            bind(\.isEnabled, to: value) { view, enabled in MainActor.assumeIsolated { view.isEnabled = enabled } }
        }

        /// Selects the control (a like button's filled heart) while `value` is true.
        @MainActor public func bindIsSelected(to value: I<Bool>) {
            bind(\.isSelected, to: value) { view, selected in MainActor.assumeIsolated { view.isSelected = selected } }
        }
    }
#endif
