/**
 * The demo's page at `/`: the URL the demo prints opens on its three routes, each with a form a
 * browser can send as is (`/form` urlencoded, `/upload` multipart), and the same requests in curl.
 */
export const indexPage = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>corral demo</title>
</head>
<body>
<h1>corral demo</h1>
<p>Three routes, each with a form and the same request in curl (for <code>--port 3000</code>).</p>
<h2><code>GET /hello</code></h2>
<p>The greeting, or the <code>name</code> from the query decoded.</p>
<form action="/hello" method="get">
<input name="name" value="you"> <button>Say hello</button>
</form>
<pre>curl 'http://127.0.0.1:3000/hello?name=you'</pre>
<h2><code>POST /form</code></h2>
<p>A urlencoded form: each entry back as <code>name=value</code>, one a line.</p>
<form action="/form" method="post">
<input name="tag" value="one"> <input name="note" value="a b+c"> <button>Send</button>
</form>
<pre>curl -d 'tag=one&amp;note=a+b%2Bc' http://127.0.0.1:3000/form</pre>
<h2><code>POST /upload</code></h2>
<p>A multipart form: each part's name, file name, type, size and SHA-256 as JSON.</p>
<form action="/upload" method="post" enctype="multipart/form-data">
<input type="file" name="files[]" multiple> <button>Upload</button>
</form>
<pre>curl -F 'files[]=@README.md' http://127.0.0.1:3000/upload</pre>
</body>
</html>
`;
