// The todos page: lists, adds, ticks and deletes todos through the JSON API. A separate file,
// not an inline script: the Content-Security-Policy of secureHeaders() allows 'self' only.
const list = document.querySelector("#todos");
const error = document.querySelector("#error");
const count = document.querySelector("#count");

async function call(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) {
    const problem = await response.json().catch(() => ({}));
    const details = (problem.errors ?? []).map((item) => `${item.path} ${item.message}`);
    throw new Error([problem.title ?? response.statusText, ...details].join(": "));
  }
  return response.status === 204 ? undefined : response.json();
}

function render(todos) {
  list.replaceChildren(
    ...todos.map((todo) => {
      const item = document.createElement("li");
      item.dataset.id = String(todo.id);
      item.className = todo.done ? "done" : "";
      const box = document.createElement("input");
      box.type = "checkbox";
      box.checked = todo.done;
      box.setAttribute("aria-label", `done: ${todo.title}`);
      box.addEventListener("change", () =>
        act(() => call("PATCH", `/api/todos/${todo.id}`, { done: box.checked })),
      );
      const title = document.createElement("span");
      title.textContent = todo.title;
      const remove = document.createElement("button");
      remove.textContent = "Delete";
      remove.className = "delete";
      remove.addEventListener("click", () => act(() => call("DELETE", `/api/todos/${todo.id}`)));
      item.append(box, title, remove);
      return item;
    }),
  );
  count.textContent = `${todos.length} todo${todos.length === 1 ? "" : "s"}`;
}

async function refresh() {
  const todos = [];
  let cursor = 0;
  for (;;) {
    const page = await call("GET", `/api/todos?limit=100&cursor=${cursor}`);
    todos.push(...page.items);
    if (page.next === null) break;
    cursor = page.next;
  }
  render(todos);
}

async function act(change) {
  try {
    await change();
    error.textContent = "";
  } catch (failure) {
    error.textContent = failure.message;
  }
  await refresh();
}

document.querySelector("#add").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = document.querySelector("#title");
  const title = input.value;
  input.value = "";
  act(() => call("POST", "/api/todos", { title }));
});

refresh().catch((failure) => {
  error.textContent = failure.message;
});
