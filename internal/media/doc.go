// Package media is the core's path for uploaded files that apps keep:
// avatars, race logos, rent's photos, music's audio. It builds on
// internal/files for storage (Local disk or S3) and on internal/jobs for
// the work done after an upload.
//
//   - Streamed uploads (ReadForm): a multipart form is read part by part,
//     its text fields into r.PostForm, its file spooled to a temporary file
//     while its bytes are counted, hashed and its first bytes kept for
//     sniffing. Memory does not grow with the file. A file over its kind's
//     limit stops being written at the limit and is a field error.
//   - Kinds (Kind): what an app accepts is declared as a value: a name, a
//     size limit, the types sniffed from the content (never the name or the
//     declared type), a Check of the whole file and the Derivations to make
//     from it. Pictures are built in (ImageKind: JPEG, PNG, GIF, WebP,
//     their decoded size judged from the header before any decoding,
//     truncated files and polyglots refused); music plugs its audio checker
//     into a Kind of its own.
//   - Originals are private: stored under PrivatePrefix, which the public
//     /files/ handler refuses, and served only by ServePrivate once the app
//     has decided the viewer may see them.
//   - Derived files (a resized picture, a waveform) are made by a job
//     (DeriveJob), off the request path, from the kept original; the
//     media_files table records originals and what was derived, with a
//     status (pending, ready, failed). Once ready, the kind's OnReady tells
//     the app, which shows the new file from then on (the previous one, or
//     a placeholder, until then), and older uploads for the same thing
//     (kind, ref) are deleted.
package media
