import{c as r,s as e}from"./flowDiagram-HODETNUW-CU5vwajk.js";import{_ as a}from"./diagram-EnGszrfP.js";import"./chunk-5VM5RSS4-BTni_4-T.js";import"./chunk-XXDRQBXY-HtYM1WIQ.js";import"./chunk-POPQ4Y6H-BdAnf2px.js";import"./chunk-F27PBJKO-nGzy8IC4.js";import"./channel-C7I5jMRd.js";import"./index-DWZ41Yfo.js";import"./_commonjsHelpers-CqkleIqs.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
