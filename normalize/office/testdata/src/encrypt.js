// encrypt.js writes the password-protected fixtures encrypted.docx and
// encrypted.pptx (password "pw") from report.docx and slides.pptx, with the
// npm package officecrypto-tool (ECMA-376 agile encryption, as Word and
// PowerPoint write it), and checks each decrypts back to its original:
//
//	npm install officecrypto-tool@0.0.19 && node testdata/src/encrypt.js
//
// (run in normalize/office, with node_modules in reach).
const oc = require('officecrypto-tool');
const fs = require('fs');
(async () => {
  for (const [src, dst] of [['report.docx', 'encrypted.docx'], ['slides.pptx', 'encrypted.pptx']]) {
    const plain = fs.readFileSync('testdata/' + src);
    const out = oc.encrypt(plain, {password: 'pw'});
    const back = await oc.decrypt(out, {password: 'pw'});
    if (!oc.isEncrypted(out) || Buffer.compare(back, plain) !== 0) {
      throw new Error(dst + ': does not decrypt back to ' + src);
    }
    fs.writeFileSync('testdata/' + dst, out);
  }
})();
