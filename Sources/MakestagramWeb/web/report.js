// Reporting a post to the moderators, with a reason; a post from another server can be reported to its server too.

import { limits, problem as code } from "./constants.js";
import { api } from "./api.js";
import { h, textDialog, toast } from "./dom.js";

/** Reports post `id`, whose author is `author` (`bob@example.social` for someone elsewhere). */
export function reportPost(id, author = "") {
  const host = author.includes("@") ? author.split("@")[1] : null;
  const forward = host ? h("input", { type: "checkbox", id: "report-forward", name: "forward", checked: true }) : null;
  return textDialog("Report post", {
    extra: host
      ? h(
          "label.checkbox-row",
          { for: "report-forward" },
          forward,
          h(
            "span",
            {},
            `Also report it to ${host}`,
            h("span.muted.checkbox-hint", {}, "Its moderators are told what you wrote, not who you are."),
          ),
        )
      : null,
    label: "Why should the moderators look at this post?",
    field: {
      id: "report-reason",
      name: "reason",
      maxlength: limits.reportReasonLength[1],
      required: true,
      placeholder: "Spam, harassment, something else…",
    },
    submitLabel: "Report",
    danger: true,
    async submit(reason, close) {
      try {
        await api.post(`/posts/${id}/reports`, { reason, forward: forward?.checked ?? false });
      } catch (problem) {
        if (problem.code === code.alreadyReported) problem.message = "You have already reported this post.";
        throw problem;
      }
      close();
      toast("Thanks. The moderators will look at this post.");
    },
  });
}
