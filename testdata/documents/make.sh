#!/bin/sh
# Makes the documents of this folder with the tools users' documents come
# from: pandoc (Debian's pandoc) and headless Chromium's print to PDF.
# Run from this folder; the tests read the results committed beside it.
set -e
pandoc lighthouse.md -o lighthouse.docx
pandoc garden.md -o garden.odt
pandoc clockmaker.md -o clockmaker.epub
pandoc volcano.md -o volcano.pptx
chromium --headless --no-sandbox --disable-gpu --generate-pdf-document-outline --print-to-pdf=rivers.pdf rivers.html
