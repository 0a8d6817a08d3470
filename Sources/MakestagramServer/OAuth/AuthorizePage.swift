import Foundation

/// The server's own sign-in and consent page for `GET /oauth/authorize`, in the web client's style: the app's name,
/// the scopes it asks for in words, and a log-in form whose Authorize and Deny buttons post back to the server.
/// Plain HTML with no script (the page's policy forbids any).
enum AuthorizePage {
    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// What a scope lets an app do, in words.
    static func describe(_ scope: String) -> String {
        switch scope {
        case "read": "See your posts, timeline, likes, comments, activity and whom you follow"
        case "write": "Post, edit and delete photos and comments, like, follow and report for you"
        case "follow": "Follow and unfollow people for you"
        case "push": "Send you notifications"
        case "profile": "See your username and name"
        default:
            scope.hasPrefix("read:")
                ? "See your \(scope.dropFirst(5))" : "Change your \(scope.split(separator: ":").last ?? "")"
        }
    }

    static func document(title: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title)) · Makestagram</title>
        <link rel="stylesheet" href="/app/app.css">
        </head>
        <body>
        <main class="main" id="main">
        <div class="auth"><div class="auth-card">
        <h1 class="logo auth-logo">Makestagram</h1>
        \(body)
        </div></div>
        </main>
        </body>
        </html>
        """
    }

    /// The sign-in and consent form; `fields` are the authorization request's, carried through hidden inputs.
    static func consent(appName: String, website: String?, scopes: Scopes, fields: [(String, String)], error: String?)
        -> String
    {
        let hidden = fields.map { "<input type=\"hidden\" name=\"\(escape($0.0))\" value=\"\(escape($0.1))\">" }
            .joined(separator: "\n")
        let list = scopes.values.sorted().map { "<li>\(escape(describe($0)))</li>" }.joined()
        let site = website.map { " <span class=\"muted\">(\(escape($0)))</span>" } ?? ""
        let problem = error.map { "<p class=\"form-error\" role=\"alert\">\(escape($0))</p>" } ?? ""
        return document(
            title: "Authorize \(appName)",
            body: """
                <h2 class="auth-subtitle"><strong>\(escape(appName))</strong>\(site) wants to use your account</h2>
                <p class="muted">It will be able to:</p>
                <ul class="scope-list">\(list)</ul>
                <p class="muted">It never sees your password. You can revoke it in Settings at any time.</p>
                <form class="stack" method="post" action="/oauth/authorize" aria-label="Authorize \(escape(appName))">
                \(hidden)
                <div class="field"><label for="username">Username</label>
                <input class="input" id="username" name="username" autocomplete="username" autocapitalize="none" required></div>
                <div class="field"><label for="password">Password</label>
                <input class="input" id="password" name="password" type="password" autocomplete="current-password" required></div>
                \(problem)
                <button class="button wide" type="submit" name="decision" value="approve">Authorize</button>
                <button class="button secondary wide" type="submit" name="decision" value="deny" formnovalidate>Deny</button>
                </form>
                """)
    }

    /// The code to copy, for apps registered with `urn:ietf:wg:oauth:2.0:oob`.
    static func code(_ code: String, appName: String) -> String {
        document(
            title: "Authorization code",
            body: """
                <h2 class="auth-subtitle">Copy this code into \(escape(appName))</h2>
                <p><code class="oauth-code" id="code">\(escape(code))</code></p>
                <p class="muted">It works once, within ten minutes.</p>
                """)
    }

    /// A request that cannot be authorized, said on the server's own page; `back` is the app's address with the
    /// error, offered as a link naming where it leads (never followed without the person choosing to).
    static func error(_ message: String, back: String? = nil) -> String {
        let link =
            back.map { url in
                let host = URL(string: url)?.host.map { " (\(escape($0)))" } ?? ""
                return
                    "<p><a class=\"button secondary\" href=\"\(escape(url))\" rel=\"noreferrer\">Back to the app\(host)</a></p>"
            } ?? ""
        return document(
            title: "Cannot authorize",
            body: """
                <h2 class="auth-subtitle">This app's request cannot be authorized</h2><p>\(escape(message))</p>\(link)
                """)
    }
}
