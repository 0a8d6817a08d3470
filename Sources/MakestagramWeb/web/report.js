// Reporting a post to the moderators, with a reason.

import { limits, problem as code } from "./constants.js";
import { api } from "./api.js";
import { textDialog, toast } from "./dom.js";

export function reportPost(id) {
  return textDialog("Report post", {
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
        await api.post(`/posts/${id}/reports`, { reason });
      } catch (problem) {
        if (problem.code === code.alreadyReported) problem.message = "You have already reported this post.";
        throw problem;
      }
      close();
      toast("Thanks. The moderators will look at this post.");
    },
  });
}
