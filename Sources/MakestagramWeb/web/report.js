// Reporting a post to the moderators, with a reason.

import { limits, problem as code } from "./constants.js";
import { api } from "./api.js";
import { h, openDialog, toast } from "./dom.js";

export function reportPost(id) {
  return openDialog("Report post", (close) => {
    const reason = h("textarea.textarea", {
      id: "report-reason",
      name: "reason",
      rows: 3,
      maxlength: limits.reportReasonLength[1],
      required: true,
      placeholder: "Spam, harassment, something else…",
    });
    const error = h("p.form-error", { role: "alert" });
    const send = h("button.button.danger", { type: "submit" }, "Report");
    return h(
      "form.stack",
      {
        onsubmit: async (event) => {
          event.preventDefault();
          send.disabled = true;
          error.textContent = "";
          try {
            await api.post(`/posts/${id}/reports`, { reason: reason.value.trim() });
            close();
            toast("Thanks. The moderators will look at this post.");
          } catch (problem) {
            error.textContent =
              problem.code === code.alreadyReported ? "You have already reported this post." : problem.message;
            send.disabled = false;
          }
        },
      },
      h("label", { for: "report-reason" }, "Why should the moderators look at this post?"),
      reason,
      error,
      h(
        "div.dialog-actions",
        {},
        h("button.button.secondary", { type: "button", onclick: () => close() }, "Cancel"),
        send,
      ),
    );
  });
}
